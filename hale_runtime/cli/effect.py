"""`hale dna effect resolve attempt:<id> --outcome succeeded|failed [--note TEXT]`.

An attempt waits for a person in two ways: its performer handed it to one
(a case on the Board's queue, `hale dna review` lists them), or after a
crash its performer could not say whether it acted (`effect.unresolved`).
Either is answered here, from any clone, the legs' way: the verb syncs,
checks the attempt in the record, and writes `attempt.outcome.requested`
under a key of its own, `<attempt>#<n>` (n: the attempt's asks so far, plus
one; its body names the person, `resolved_by`, and the note), so a resolve
the organization refuses answers only itself and the next one is heard.
While an ask of the attempt waits for its answer, another is refused. A node relays it to the organization, whose Settler has the engine
write the attempt's one outcome, with `resolved_by`, and the execution goes
on from there (hale_runtime/asks/settle.py). Beside a running organism the
verb waits for the Settler's answer and prints the outcome or why it was
refused; without one it says the ask is in the record.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_USAGE, fail, json_option, offline_option
from hale_runtime.project import find_root
from hale_runtime.record import kinds


@click.group("effect", invoke_without_command=True)
@offline_option
@json_option
@click.pass_context
def effect(ctx: click.Context, offline: bool, as_json: bool) -> None:
    """Attempts waiting for a person: a case, or an effect nobody could vouch for.

    With no subcommand, list them (`effect resolve` answers one)."""
    if ctx.invoked_subcommand is not None:
        return
    from hale_runtime.cli.organism import fetch_unless_offline
    from hale_runtime.record import Record

    record = Record.open(find_root())
    fetch_unless_offline(record, offline)
    if as_json:
        from hale_runtime.cli.documents import cases_json
        from hale_runtime.cli.shapes import emit

        emit({"cases": cases_json(record)})
        return
    from hale_runtime.engine.cases import case_lines, open_cases

    for line in case_lines(open_cases(record)):
        click.echo(line)


@effect.command("resolve")
@click.argument("target", metavar="attempt:<id>")
@click.option("--outcome", type=click.Choice(["failed", "succeeded"]), required=True)
@click.option("--note", default="", help="what the person found or did (the outcome's detail)")
def resolve(target: str, outcome: str, note: str) -> None:
    """Answer an attempt waiting for a person with the outcome the person decided."""
    from hale_runtime.cli.organism import answer_or_leave

    if not target.startswith("attempt:"):
        fail(f"name the attempt as attempt:<id>, not {target}", EXIT_USAGE)
    attempt = target.removeprefix("attempt:")
    root = find_root()
    record, ask = _ask(root, attempt, outcome, note)
    answered = answer_or_leave(
        root,
        record,
        f"attempt:{attempt} {outcome} asked (attempt.outcome.requested); "
        "the organization records it when it hears it",
        lambda: _answer(record, ask.key),
        f"asked for attempt:{attempt} {outcome}, but the organization answered nothing "
        "in time; the ask stays in the record",
    )
    if answered is None:
        return
    if answered.body.get("ask", ask.id) != ask.id:
        fail(
            f"effect resolve: another ask, {ask.key}, written at the same time from another "
            "clone, was answered in its place; yours was not read: ask again"
        )
    why = answered.body.get("why", "")
    if why:
        fail(f"effect resolve: refused: {why}")
    click.echo(f"attempt:{attempt} {answered.body.get('settled')} (resolved by {record.who})")


def _ask(root, attempt: str, outcome: str, note: str):
    """Check the attempt as this clone's synced record holds it, and write the
    ask under its own key: (the record, the ask's row)."""
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.engine.show import read_root
    from hale_runtime.record import Record

    record = Record.open(root)
    sync_quietly(record)
    a = read_root(record, attempt).attempts.get(attempt)
    if a is None:
        fail(f"no attempt {attempt} in the record")
    if a.outcome is not None:
        fail(f"attempt {attempt} already has its outcome: {a.outcome}")
    if not a.waits_for_person:
        fail(f"attempt {attempt} is not waiting for a person")
    asks = _asks(record, attempt)
    answered = {r.key for r in record.scan(0, kinds.OUTCOME_ANSWERED, _ranges(attempt))}
    waiting = [r for r in asks if r.key not in answered]
    if waiting:
        said = waiting[0].body.get("outcome", "")
        fail(f"attempt {attempt}'s outcome is asked already ({said}); the organization records it")
    body = {"outcome": outcome, "note": note, "resolved_by": record.who}
    ask = f"{attempt}#{len(asks) + 1}"
    why = record.judge(kinds.OUTCOME_REQUESTED, ask, body)
    if why:  # a person resolves, proven by a key the record binds to them
        fail(f"effect resolve attempt:{attempt}: {why} (`hale dna key register`)")
    return record, record.append(kinds.OUTCOME_REQUESTED, ask, body)


def _ranges(attempt: str) -> list:
    """The attempt's own key (a leg's asks) and every `<attempt>#…` (a person's)."""
    from hale_runtime.record.index import prefix_range

    return [(attempt, attempt + "\x00"), prefix_range(attempt + "#")]


def _asks(record, attempt: str) -> list:
    return list(record.scan(0, kinds.OUTCOME_REQUESTED, _ranges(attempt)))


def _answer(record, key: str):
    """The organization's answer to the resolve asked under `key`, if any yet."""
    rows = record.rows(kind=kinds.OUTCOME_ANSWERED, key=key)
    return rows[0] if rows else None
