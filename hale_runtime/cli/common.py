"""What every verb shares: refusing in one line, with a meaningful exit code,
and printing `.hl` diagnostics (coloured on a terminal, never under NO_COLOR)."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

EXIT_OK = 0
EXIT_REFUSED = 1  # refused or failed
EXIT_USAGE = 2
EXIT_LEASE_HELD = 3  # the body lease is held elsewhere
EXIT_GENOME_MOVED = 75


json_option = click.option(
    "--json", "as_json", is_flag=True, help="one JSON document (its shape: docs/cli.md)"
)
offline_option = click.option(
    "--offline", is_flag=True, help="read this clone's record as it is, without syncing first"
)


def fail(message: str, code: int = EXIT_REFUSED) -> NoReturn:
    """Print `hale: <message>` on stderr and exit with `code`."""
    click.echo(f"hale: {message}", err=True)
    raise SystemExit(code)


def echo_diagnostics(diagnostics, sources) -> None:
    """Print diagnostics on stderr, rustc-style; nothing when there are none."""
    from hale_lang.diagnostics import render_all
    from hale_lang.highlight import wants_colour

    if diagnostics:
        colour = wants_colour(sys.stderr)
        click.echo(render_all(diagnostics, sources, colour), err=True, color=colour or None)
