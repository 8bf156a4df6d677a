"""`hale dna ledger [adopt|abandon]`: the ledger the record may adopt for the
legs' rows (hale_runtime/ledger/).

With no subcommand it says whether one is adopted, under which epoch, and
how many rows wait to be carried into the record. `adopt` and `abandon`
ask by a row (`ledger.adopt.requested`, `ledger.abandon.requested`), from
any clone; a node carries it out in its tick's step 4 and answers it. Beside
a running node the verb waits for that answer and prints it (exit 1 on a
refusal or no answer in time); without one it says the row waits in the
record for a node. Exit codes: 0 done or asked, 1 refused or unanswered, 2
usage.
"""

from __future__ import annotations

import secrets

import click

from hale_runtime.cli.common import fail, json_option


@click.group("ledger", invoke_without_command=True)
@json_option
@click.pass_context
def ledger(ctx: click.Context, as_json: bool) -> None:
    """Whether the record has adopted a ledger for the legs' rows, and its epoch."""
    if ctx.invoked_subcommand is not None:
        return
    from hale_runtime.cli.organism import project_memory
    from hale_runtime.ledger.keeper import adopted
    from hale_runtime.project import find_root
    from hale_runtime.record import Record

    root = find_root()
    done = adopted(Record.open(root))
    if as_json:
        from hale_runtime.cli.shapes import emit

        memory = project_memory(root) if done is not None else None
        body = done.body if done is not None else {}
        emit({
            "adopted": done is not None,
            "epoch": body.get("epoch"),
            "claim": body.get("claim", "body") if done is not None else None,
            "holder": body.get("holder", done.who) if done is not None else None,
            "waiting": memory.ledger_count() if memory else None,
        })  # fmt: skip
        return
    if done is None:
        click.echo("ledger: none adopted; the legs' rows are written to the git record")
        return
    memory = project_memory(root)
    waiting = f"{memory.ledger_count()} row(s) waiting to be carried" if memory else "memory unread"
    body = done.body
    click.echo(f"ledger: adopted on memory, epoch {body['epoch']} ({body.get('claim', 'body')} "
               f"claim, {body.get('holder', done.who)}); {waiting}")  # fmt: skip


@ledger.command("adopt")
def adopt() -> None:
    """Ask that the record adopt memory's ledger for the legs' rows."""
    _ask("adopt")


@ledger.command("abandon")
def abandon() -> None:
    """Ask that the record abandon its ledger (its rows are carried in first)."""
    _ask("abandon")


def _ask(verb: str) -> None:
    from hale_runtime.cli.organism import answer_wait_s, organism_running, sync_quietly, wait_for
    from hale_runtime.project import find_root
    from hale_runtime.record import Record

    root = find_root()
    record = Record.open(root)
    key = f"ledger/{secrets.token_hex(4)}"
    row = record.append(f"ledger.{verb}.requested", key, {"by": record.who})
    if not organism_running(root):
        sync_quietly(record)
        click.echo(f"ledger: {verb} asked ({key}); a node carries it out at its next tick")
        return
    answers = [f"ledger.{verb}.done", f"ledger.{verb}.refused"]
    answer = wait_for(record, lambda: next(iter(record.rows(kind=answers, key=key)), None),
                      answer_wait_s())  # fmt: skip
    if answer is None:
        fail(f"{verb} asked ({key}, row {row.id[:12]}), but no node answered in time")
    if answer.kind.endswith(".refused"):
        fail(f"ledger: {verb} refused: {answer.body.get('why', '')}")
    if verb == "adopt":
        click.echo(
            f"ledger: adopted; the legs' rows go to memory under epoch {answer.body['epoch']}"
        )
    else:
        carried = answer.body.get("carried", 0)
        click.echo(f"ledger: abandoned; {carried} row(s) carried into the record")
