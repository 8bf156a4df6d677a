"""`hale dna effect resolve attempt:<id> --outcome failed|succeeded`.

When a performer could not say whether it acted on an attempt a dead
process had claimed, the attempt waits for a person. Resolving it writes
the attempt's one outcome; the organization settles the rest from there.
Only an attempt waiting for a person is resolved: any other is refused.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail
from hale_runtime.project import NotAProject, find_root


@click.group("effect")
def effect() -> None:
    """Effects whose performer could not say whether they happened."""


@effect.command("resolve")
@click.argument("target", metavar="attempt:<id>")
@click.option("--outcome", type=click.Choice(["failed", "succeeded"]), required=True)
def resolve(target: str, outcome: str) -> None:
    """Record the outcome a person decided for an attempt waiting on them."""
    from hale_runtime.engine.show import fold_root
    from hale_runtime.record import Record, RecordError

    if not target.startswith("attempt:"):
        fail(f"name the attempt as attempt:<id>, not {target}", 2)
    attempt = target.removeprefix("attempt:")
    try:
        record = Record.open(find_root())
        a = fold_root(record.rows(), attempt).attempts.get(attempt)
        if a is None:
            fail(f"no attempt {attempt} in the record")
        if a.outcome is not None:
            fail(f"attempt {attempt} already has its outcome: {a.outcome}")
        if not a.unresolved:
            fail(f"attempt {attempt} is not waiting for a person")
        body = {"outcome": outcome, "performer": a.performer, "detail": "resolved by a person"}
        record.append("attempt.outcome", attempt, {**body, "resolved_by": record.who})
    except (NotAProject, RecordError) as exc:
        fail(str(exc))
    click.echo(f"attempt:{attempt} {outcome}")
