"""What every verb shares: refusing in one line, with a meaningful exit code."""

from __future__ import annotations

from typing import NoReturn

import click

EXIT_OK = 0
EXIT_REFUSED = 1  # refused or failed
EXIT_USAGE = 2
EXIT_LEASE_HELD = 3  # the body lease is held elsewhere
EXIT_GENOME_MOVED = 75


def fail(message: str, code: int = EXIT_REFUSED) -> NoReturn:
    """Print `hale: <message>` on stderr and exit with `code`."""
    click.echo(f"hale: {message}", err=True)
    raise SystemExit(code)
