"""`hale dna show TASK`: the execution tree of a task, read from this clone's record."""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail
from hale_runtime.project import NotAProject, find_root


@click.command("show")
@click.argument("task")
def show(task: str) -> None:
    """Print TASK's tree: its steps, members, attempts and their states."""
    if task == "processes":
        from hale_runtime.schedules.show import show_processes

        return show_processes()
    from hale_runtime.engine.show import read_root, render
    from hale_runtime.record import Record, RecordError

    try:
        record = Record.open(find_root())
        state = read_root(record, task)
    except (NotAProject, RecordError) as exc:
        fail(str(exc))
    if task not in state.tasks:
        fail(f"no task {task} in the record")
    click.echo(render(state, task), nl=False)
