"""`hale dna show processes`: the organization's rhythms, read from the record."""

from __future__ import annotations

import click


def show_processes() -> None:
    """Print the processes: one line a rhythm, `<position> convenes <definition> <cadence>`."""
    from hale_runtime.cli.common import fail
    from hale_runtime.project import NotAProject, find_root
    from hale_runtime.record import Record, RecordError
    from hale_runtime.schedules.listing import process_lines

    try:
        record = Record.open(find_root())
    except (NotAProject, RecordError) as error:
        fail(str(error))
    for line in process_lines(record):
        click.echo(line)
