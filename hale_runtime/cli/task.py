"""`hale dna task create` and `task cancel`: ask the organization for a task, or to stop one.

The ask is an `intent.requested` row in your name, from any clone
(hale_runtime/asks/request.py). Beside a running organism the verb waits for
the answer and prints the task id or the refusal (exit 1); without one it
says the ask is in the record, for an organization to admit when it hears
it. `cancel` asks the same way with a `workflow.cancel_requested` row
(hale_runtime/engine/cancel.py) and prints the organization's answer.
Exit codes: 0 admitted, cancelled or asked, 1 refused or unanswered, 2 usage.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_USAGE, fail
from hale_runtime.record import kinds


@click.group("task")
def task() -> None:
    """Ask the organization for work, or to cancel it."""


@task.command("create")
@click.argument("objective")
@click.option("--judgment", is_flag=True, help="one judgment leaf, a leg's; no plan is asked")
@click.option("--to", "to", default="", help="position:<name>: one patch for the leg holding it")
@click.option("--target", default=".", help="what the change is to (default: the application)")
def create(objective: str, judgment: bool, to: str, target: str) -> None:
    """Ask for OBJECTIVE to be done, and wait for the organization's answer."""
    from hale_runtime.asks import request as ask
    from hale_runtime.cli.organism import answer_or_leave
    from hale_runtime.project import find_root
    from hale_runtime.record import Record

    if judgment and to:
        fail("give at most one of --judgment and --to", EXIT_USAGE)
    if to and not to.startswith("position:"):
        fail(f"--to names a position as position:<name>, not {to!r}", EXIT_USAGE)
    root = find_root()
    record = Record.open(root)
    row = ask.request(record, objective, target, judgment, to)
    answered = answer_or_leave(
        root,
        record,
        f"ask {row.key} is in the record (intent.requested by {record.who}); "
        "an organization admits it when it hears it",
        lambda: ask.answer(record, row.key),
        f"asked ({row.key}), but the organization journaled no answer in time; the ask "
        "stays in the record, and a running organization admits it when it hears it",
    )
    if answered is None:
        return
    answer, task_id = answered
    if answer.kind == kinds.INTENT_REFUSED:
        click.echo(f"task create: {answer.body.get('reason', 'refused')}")
        raise SystemExit(1)
    definition = answer.body.get("definition", "")
    click.echo(f"task {task_id} born: {definition} for ask {row.key}")


@task.command("cancel")
@click.argument("task_id", metavar="TASK")
def cancel(task_id: str) -> None:
    """Ask the organization to cancel root TASK, fencing everything below it."""
    from hale_runtime.cli.organism import answer_or_leave, sync_quietly
    from hale_runtime.engine import cancel as cancels
    from hale_runtime.engine import ids
    from hale_runtime.engine.show import read_root
    from hale_runtime.project import find_root
    from hale_runtime.record import Record

    root = find_root()
    record = Record.open(root)
    sync_quietly(record)  # a task admitted on another clone is known here
    if task_id not in read_root(record, task_id).tasks:
        fail(f"no task {task_id} in the record; nothing asked (`hale dna history --kind workflow.admitted` lists the tasks)")  # fmt: skip
    if ids.root_of(task_id) != task_id:
        fail(f"{task_id} is not a root task; cancel its root, {ids.root_of(task_id)}")
    row = cancels.request(record, task_id)
    answer = answer_or_leave(
        root,
        record,
        f"cancel of {task_id} asked ({cancels.REQUESTED} {row.key}); "
        "the organization answers it when it hears it",
        lambda: cancels.answer_of(record, row.key),
        f"asked ({row.key}), but the organization answered nothing in time; the ask "
        "stays in the record, and a running organization answers it when it hears it",
    )
    if answer is None:
        return
    if not answer.body.get("cancelled"):
        click.echo(f"task cancel: refused: {answer.body.get('why', '')}")
        raise SystemExit(1)
    click.echo(
        f"task {task_id} cancelled: everything below it is fenced (`hale dna show {task_id}`)"
    )
