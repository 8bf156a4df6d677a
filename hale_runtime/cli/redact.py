"""`hale dna redact ROW [--why TEXT]`: erase a row's protected body everywhere.

ROW is a row's id (or the first 12 or more of its hex digits, when they
name one row). The row must name a protected body, and you must be its
writer or the Board's holder (genesis while the Board is unheld; anyone on a
record made before signing), proven by your key: the redaction is signed,
and one whose signature does not prove its writer is quarantined by every
reader, never obeyed. The verb
writes `row.redacted <row id> {"protected": <digest>}`, erases the body in
this clone, and syncs, which deletes it at the remote; every node erases it
at its next tick, in its clone and in memory, and every clone that syncs
after that erases its copy. The row and its id stay. Exit codes: 0
redacted (or already), 1 refused or not written, 2 usage.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_USAGE, fail


@click.command("redact")
@click.argument("row_id", metavar="ROW")
@click.option("--why", default="", help="why it is erased (kept on the redaction row)")
def redact(row_id: str, why: str) -> None:
    """Erase the protected body of ROW in every clone; the row itself stays."""
    from hale_runtime.project import find_root
    from hale_runtime.record import Record, RecordError, kinds, protected
    from hale_runtime.record.errors import RowRefused

    record = Record.open(find_root())
    target = _find(record, row_id)
    refused = protected.may_redact(record.who, target, protected.board_holder(record))
    if refused:
        fail(f"redact: {refused}; nothing written")
    digest = str(target.body[protected.FIELD])
    if digest in protected.redacted_digests(record):
        click.echo(f"redact: row {target.id[:12]}'s protected body is already redacted")
        return
    body = {protected.FIELD: digest, **({"why": why} if why else {})}
    try:
        record.append(kinds.ROW_REDACTED, target.id, body)
    except RowRefused as refused_here:  # its signature would not prove its writer
        fail(f"redact: {str(refused_here).removeprefix('refused: ')}; nothing written")
    left = protected.erase(record.repo.path, [digest])
    if left:
        fail(f"redact: written, but {digest} is still readable in this clone")
    where = "in this clone (no remote)"
    if record.remote() is not None:
        try:
            record.sync()
            where = f"in this clone and at {record.remote()}"
        except RecordError as error:
            where = f"in this clone; the redaction reaches the remote at a later sync ({error})"
    click.echo(f"redact: row {target.id[:12]}'s protected body {digest[:12]} erased {where}")
    click.echo("every node erases it at its next tick, and every clone when it syncs")


def _find(record, row_id: str):
    """The row `row_id` names: its id, or a prefix of 12+ hex digits naming one row."""
    found = record.get(row_id)
    if found is not None or len(row_id) == 64:
        return found
    if len(row_id) < 12 or any(c not in "0123456789abcdef" for c in row_id):
        fail(f"redact: ROW is a row's id, or its first 12 hex digits or more, not {row_id!r}",
             EXIT_USAGE)  # fmt: skip
    matches = [r for r in record.scan(poison=True) if r.id.startswith(row_id)]
    if len(matches) > 1:
        fail(f"redact: {row_id} names {len(matches)} rows; give more of the id", EXIT_USAGE)
    return matches[0] if matches else None
