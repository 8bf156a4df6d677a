"""`hale dna review`: the Reviews waiting for the Board, and deciding them.

`hale dna review` lists the open Reviews by family; `review <k:id>
approve|reject` decides one, `review <family> approve` every open one of a
family. Approving a practice ratifies it, and its ratify step declares the
schedule its receipt carries (hale_runtime/schedules/review.py). Once
memory names who holds the Board, only its holder decides (exit 1). The
verb syncs with the remote before it reads and after it writes, so a
decision made on any clone reaches the organism.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_USAGE, fail


@click.command("review")
@click.argument("target", required=False)
@click.argument("decision", required=False, type=click.Choice(["approve", "reject"]))
def review(target: str | None, decision: str | None) -> None:
    """List open Reviews, or decide TARGET (a k:<id>, or a family) with DECISION."""
    from hale_runtime.project import NotAProject, find_root
    from hale_runtime.record import Record, RecordError
    from hale_runtime.schedules import review as reviews
    from hale_runtime.schedules.ask import sync_quietly

    try:
        root = find_root()
        record = Record.open(root)
    except (NotAProject, RecordError) as error:
        fail(str(error))
    sync_quietly(record)
    if target is None:
        for line in reviews.review_lines(record):
            click.echo(line)
        return
    if decision is None:
        fail("say approve or reject: `hale dna review <id> approve|reject`", EXIT_USAGE)
    if not target.startswith("k:") and decision != "approve":
        fail("a family is approved whole; reject its Reviews one by one", EXIT_USAGE)
    found = reviews.targets(record, target)
    if not found:
        fail(f"no open Review {target} (`hale dna review` lists them)")
    why = reviews.board_refusal(root, record.who)
    if why:
        fail(f"review {target}: refused: {why}")
    for r in found:
        for line in reviews.decide(root, record, r, decision == "approve"):
            click.echo(line)
    sync_quietly(record)
