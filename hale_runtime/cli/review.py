"""`hale dna review`: the Reviews and the cases waiting for the Board, and deciding them.

`hale dna review` lists the open Reviews by family, then the open cases
(attempts waiting for a person, engine/cases.py), which a person answers
with `hale dna effect resolve`; `review <k:id>
approve|reject` decides one, `review <family> approve` every open one of a
family. The verb writes the Board's decision; the organization carries an
approval out as a `practice-ratify` execution, whose ratify step writes
`practice.ratified` and declares the schedule the practice's receipt
carries (hale_runtime/schedules/ratify.py). Beside a running organism the
verb waits for the ratify step and prints what it said; from a clone with
none it says the organization ratifies it when it hears it. Only the
Board decides, or the Leader inside the grant the Board gave it
(`hale dna grant`, record/grants.py); anyone else is refused (exit 1). The verb
syncs with the remote before it reads and after it writes, so a decision
made on any clone reaches the organism.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_USAGE, fail, json_option, offline_option


@click.command("review")
@click.argument("target", required=False)
@click.argument("decision", required=False, type=click.Choice(["approve", "reject"]))
@offline_option
@json_option
def review(target: str | None, decision: str | None, offline: bool, as_json: bool) -> None:
    """List open Reviews and cases, or decide TARGET (a k:<id>, or a family) with DECISION."""
    from hale_runtime.cli.organism import (
        fetch_unless_offline,
        organism_running,
        project_memory,
        unlanded,
    )
    from hale_runtime.project import find_root
    from hale_runtime.record import Record
    from hale_runtime.schedules import review as reviews

    root = find_root()
    record = Record.open(root)
    fetch_unless_offline(record, offline)
    if target is None and as_json:
        from hale_runtime.cli.documents import reviews_json
        from hale_runtime.cli.shapes import emit

        emit(reviews_json(record))
        return
    if as_json:
        fail("--json lists; it does not decide: `hale dna review --json`", EXIT_USAGE)
    if target is None:
        from hale_runtime.engine.cases import case_lines, open_cases
        from hale_runtime.node.board import budget_line, exhausted_now

        spent = exhausted_now(record)  # the Board is told until the next window starts
        told = [budget_line(spent)] if spent else []
        for line in told + reviews.review_lines(record) + case_lines(open_cases(record)):
            click.echo(line)
        return
    if decision is None:
        fail("say approve or reject: `hale dna review <id> approve|reject`", EXIT_USAGE)
    if not target.startswith("k:") and decision != "approve":
        fail("a family is approved whole; reject its Reviews one by one", EXIT_USAGE)
    found = reviews.targets(record, target)
    if not found:
        fail(f"no open Review {target} (`hale dna review` lists them)")
    memory = project_memory(root)
    try:
        why = reviews.board_refusal(memory, record, found[0].key)
    finally:
        if memory is not None:
            memory.close()
    if why:
        fail(f"review {target}: {why}")
    approve = decision == "approve"
    pending = [r for r in found if r.decision is None and approve]
    for r in found:
        for line in reviews.decide(record, r, approve):
            click.echo(line)
    not_landed = unlanded(record)
    if not_landed:
        fail(not_landed)
    if not pending:
        return
    if not organism_running(root):
        them = "it" if len(pending) == 1 else "them"
        click.echo(f"  the organization ratifies {them} (practice-ratify) when it hears it")
        return
    _await(record, pending)


def _await(record, pending) -> None:
    from hale_runtime.cli.organism import answer_wait_s, wait_for
    from hale_runtime.schedules import review as reviews

    for r in pending:
        step = wait_for(record, lambda r=r: reviews.ratified(record, r), answer_wait_s())
        if step is None:
            click.echo(
                f"  {r.key}: the organization ratified nothing in time; the decision stays "
                "in the record, and a running organization ratifies it when it hears it"
            )
        else:
            click.echo(f"  ratify {r.key}: {step or 'ratified (practice.ratified)'}")
