"""`hale dna effect resolve attempt:<id> --outcome failed|succeeded`.

When a performer could not say whether it acted on an attempt a dead
process had claimed, the attempt waits for a person. Resolving it goes the
legs' way: an `attempt.outcome.requested` row under the attempt's id (its
body names the person, `resolved_by`), relayed by a node to the
organization, whose engine writes the attempt's one outcome and settles the
rest from there (hale_runtime/head/settle.py). Only an attempt waiting for
a person is resolved, and only once: any other is refused. Beside a running
organism the verb waits for the outcome; without one it says the ask is in
the record.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail
from hale_runtime.project import find_root
from hale_runtime.record import kinds

OUTCOME = kinds.ATTEMPT_OUTCOME


@click.group("effect")
def effect() -> None:
    """Effects whose performer could not say whether they happened."""


@effect.command("resolve")
@click.argument("target", metavar="attempt:<id>")
@click.option("--outcome", type=click.Choice(["failed", "succeeded"]), required=True)
def resolve(target: str, outcome: str) -> None:
    """Ask the organization to record the outcome a person decided for an attempt."""
    from hale_runtime.cli.organism import organism_running, sync_quietly
    from hale_runtime.engine.show import read_root
    from hale_runtime.record import Record

    if not target.startswith("attempt:"):
        fail(f"name the attempt as attempt:<id>, not {target}", 2)
    attempt = target.removeprefix("attempt:")
    root = find_root()
    record = Record.open(root)
    a = read_root(record, attempt).attempts.get(attempt)
    if a is None:
        fail(f"no attempt {attempt} in the record")
    if a.outcome is not None:
        fail(f"attempt {attempt} already has its outcome: {a.outcome}")
    if not a.unresolved:
        fail(f"attempt {attempt} is not waiting for a person")
    asked = _rows(record, kinds.OUTCOME_REQUESTED, attempt)
    if asked:
        said = asked[0].body.get("outcome", "")
        fail(f"attempt {attempt}'s outcome is asked already ({said}); the organization records it")
    body = {"outcome": outcome, "note": "resolved by a person", "resolved_by": record.who}
    record.append(kinds.OUTCOME_REQUESTED, attempt, body)
    if not organism_running(root):
        sync_quietly(record)
        click.echo(
            f"attempt:{attempt} {outcome} asked (attempt.outcome.requested); "
            "the organization records it when it hears it"
        )
        return
    settled = _await_outcome(record, attempt)
    if settled is None:
        fail(
            f"asked for attempt:{attempt} {outcome}, but the organization recorded no outcome "
            "in time; the ask stays in the record"
        )
    click.echo(f"attempt:{attempt} {settled.body.get('outcome')}")


def _rows(record, kind: str, attempt: str) -> list:
    return record.rows(kind=kind, key=attempt)


def _await_outcome(record, attempt: str):
    from hale_runtime.cli.organism import answer_wait_s, wait_for

    return wait_for(record, lambda: next(iter(_rows(record, OUTCOME, attempt)), None),
                    answer_wait_s())  # fmt: skip
