"""What every verb shares: refusing in one line, with a meaningful exit code,
and printing `.hl` diagnostics (coloured on a terminal, never under NO_COLOR)."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

# the exit codes are the error tree's (errors.py), named here too for the verbs
from hale_runtime.errors import EXIT_GENOME_MOVED as EXIT_GENOME_MOVED
from hale_runtime.errors import EXIT_LEASE_HELD as EXIT_LEASE_HELD
from hale_runtime.errors import EXIT_OK as EXIT_OK
from hale_runtime.errors import EXIT_REFUSED as EXIT_REFUSED
from hale_runtime.errors import EXIT_USAGE as EXIT_USAGE

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
