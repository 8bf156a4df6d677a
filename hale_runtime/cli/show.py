"""`hale dna show TASK`: the execution tree of a task, read from this clone's
record; `hale dna show processes`: the organization's rhythms, one line
each, `<position> convenes <definition> <cadence>`."""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail, json_option, offline_option
from hale_runtime.cli.shapes import emit
from hale_runtime.project import find_root


@click.command("show")
@click.argument("task")
@offline_option
@json_option
def show(task: str, offline: bool, as_json: bool) -> None:
    """Print TASK's tree: its steps, members, attempts and their states."""
    from hale_runtime.cli.organism import fetch_unless_offline
    from hale_runtime.record import Record

    record = Record.open(find_root())
    fetch_unless_offline(record, offline)
    if task == "processes":
        from hale_runtime.schedules.listing import process_json, process_lines

        if as_json:
            emit(process_json(record))
            return
        for line in process_lines(record):
            click.echo(line)
        return
    if as_json:
        from hale_runtime.cli.documents import task_json

        doc = task_json(record, task)
        if doc is None:
            fail(f"no task {task} in the record")
        emit(doc)
        return
    from hale_runtime.engine.show import shown

    text = shown(record, task)
    if text is None:
        fail(f"no task {task} in the record")
    click.echo(text, nl=False)
