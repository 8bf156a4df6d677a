"""Projecting the record into memory's graph, one stamped row at a time.

The cursor `record` in memory holds `<seq>:<row id>` of the last row
projected. Each step reads it, takes the next stamped rows of this clone's
chain (stamped rows stand in the same place on every clone), turns it into
graph ops through PROJECTIONS (row kind -> ops; kinds absent from the table
only move the cursor) and applies ops and cursor move in one transaction,
by compare-and-swap on the cursor: of several nodes projecting over one
memory, each row is applied once, and a node that loses the swap reads the
cursor again. A cursor whose row id is not the one this clone holds at that
place means the chain was rewritten under memory: what the projection made
is forgotten and made again from the record (`Memory.reset_projection`).
A tick reads its window of rows once (a generator over the record, not a
list of the whole backlog a row), and a run of rows that only move the
cursor is moved over in the one transaction of the row that ends it: a
backlog of asks costs a transaction a projected row, not one a row.

Protected bodies go into memory the same way: a row naming one that this
clone holds keeps it there (`KeepProtected`), and a standing redaction
erases it (`EraseProtected`), once per memory, in chain order.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

from hale_runtime.errors import one_line
from hale_runtime.memory import (
    DropEdge,
    DropVia,
    Edge,
    EraseProtected,
    GraphOp,
    KeepProtected,
    Memory,
    Node,
    SetHolder,
)
from hale_runtime.record import Record, Row, kinds, protected

CURSOR = "record"
BATCH = 500  # rows one tick projects at most, so a backlog never stalls the tick

Projector = Callable[[Row], list[GraphOp]]


def _position_filled(row: Row) -> list[GraphOp]:
    name = str(row.body.get("position") or row.key)
    return [SetHolder(name, row.body.get("holder") or None)]


def _position_vacated(row: Row) -> list[GraphOp]:
    return [SetHolder(str(row.body.get("position") or row.key), None)]


def _definition_id(row: Row) -> str:
    name = str(row.body.get("definition") or row.key)
    return name if name.startswith("definition:") else f"definition:{name}"


def _schedule_declared(row: Row) -> list[GraphOp]:
    definition = _definition_id(row)
    props = {k: v for k, v in row.body.items() if k not in ("convener", "definition")}
    ops: list[GraphOp] = [Node(definition, "definition", {})]
    convener = row.body.get("convener")
    ops.append(DropVia("convenes", row.key))  # a changed schedule moves its own edge only
    if convener:
        edge = {"schedule": row.key, **props}
        ops.append(Edge(str(convener), "convenes", definition, edge, via=row.key))
    return ops


def _schedule_retired(row: Row) -> list[GraphOp]:
    return [DropVia("convenes", row.key)]


def _definition_registered(row: Row) -> list[GraphOp]:
    return [Node(_definition_id(row), "definition", dict(row.body))]


def _body_provisioned(row: Row) -> list[GraphOp]:
    props = {k: v for k, v in row.body.items() if k != "host"}
    return [Node(f"host:{row.body['host']}", "host", {**props, "at": row.at})]


# row kind -> the graph ops it projects to; extend it for new kinds
def _key_registered(row: Row) -> list[GraphOp]:
    """A holder with its keys: `<identity> -key-> key:<fingerprint>` (the rows
    projected are the ones the record let stand: record/trust.py)."""
    name, bound = str(row.body.get("identity", "")), str(row.body.get("bound", ""))
    props = {"identity": name, "bound": bound, "revoked": False}
    return [Node(row.key, "key", props), Edge(name, "key", row.key, {"bound": bound})]


def _key_revoked(row: Row) -> list[GraphOp]:
    name = str(row.body.get("identity", ""))
    ops: list[GraphOp] = [Node(row.key, "key", {"identity": name, "revoked": True})]
    return [*ops, DropEdge(name, "key", row.key)] if name else ops


PROJECTIONS: dict[str, Projector] = {
    kinds.KEY_REGISTERED: _key_registered,
    kinds.KEY_REVOKED: _key_revoked,
    kinds.POSITION_FILLED: _position_filled,
    kinds.POSITION_VACATED: _position_vacated,
    kinds.SCHEDULE_DECLARED: _schedule_declared,
    kinds.SCHEDULE_RETIRED: _schedule_retired,
    kinds.DEFINITION_REGISTERED: _definition_registered,
    kinds.BODY_PROVISIONED: _body_provisioned,
}


class ProjectionDiverged(Exception):
    """Memory's cursor names a row this clone's chain does not hold at that place."""


def _parse(cursor: str | None) -> tuple[int, str]:
    if not cursor:
        return 0, ""
    seq, _, row_id = cursor.partition(":")
    return int(seq), row_id


def _ops(record: Record, row: Row) -> tuple[list[GraphOp], str]:
    """(the row's graph ops, why it projects to nothing though it fits its kind)."""
    projector = PROJECTIONS.get(row.kind)
    if record.poison_of(row):
        return [], ""
    try:
        ops = projector(row) if projector is not None else []
    except Exception as error:  # the row's content: it projects to nothing
        return [], one_line(error)
    return ops + _protected_ops(record, row), ""


def _protected_ops(record: Record, row: Row) -> list[GraphOp]:
    """Memory keeps the protected body a row names (when this clone holds it: a
    redacted one it no longer does), and erases one a standing redaction names."""
    digest = row.body.get(protected.FIELD)
    if not isinstance(digest, str):
        return []
    if row.kind == kinds.ROW_REDACTED:
        standing = protected.redacted_digests(record)
        return [EraseProtected(digest)] if digest in standing else []
    body = protected.get(record.repo, digest)
    return [KeepProtected(digest, body)] if body is not None else []


def project(
    record: Record,
    memory: Memory,
    fence: tuple[str, int] | None = None,
    limit: int = BATCH,
    report: Callable[[Row, str], None] | None = None,
    report_reset: Callable[[str], None] | None = None,
) -> int:
    """Project stamped rows past memory's cursor; how many this node applied. A
    cursor not in this clone's chain is reset (`report_reset` told), and memory's
    projection is made again from the first row."""
    applied, tries = 0, 0
    while applied < limit and tries < limit:
        tries += 1
        expected = memory.cursor(CURSOR)
        seq, row_id = _parse(expected)
        # one read for the window (a generator: a backlog is not read again a row)
        scan = record.scan(max(seq - 1, 0), stamped_only=True, poison=True)
        rows = list(islice(scan, limit - applied + 1))
        if seq and (not rows or rows[0].seq != seq or rows[0].id != row_id):
            if record.stamped_count() < seq:
                return applied  # this clone has not received that far yet
            # the chain was rewritten under memory (a remote forced below it): what was
            # projected is rebuilt from the record as it stands, never left stalled
            if report_reset is not None:
                report_reset(f"memory's cursor {expected} is not in this record's chain: rebuilt")
            memory.reset_projection(CURSOR, expected)
            continue
        following = rows[1:] if seq else rows[: limit - applied]
        if not following:
            return applied
        skipped = 0  # rows that only move the cursor, moved over in one transaction
        for n, row in enumerate(following):
            ops, why = _ops(record, row)
            last = n == len(following) - 1
            if not ops and not why and not last:
                skipped += 1
                continue
            moved = f"{row.seq}:{row.id}"
            if not memory.apply_projection(CURSOR, expected, moved, ops, fence):
                skipped = -1
                break  # another node moved the cursor: read it again
            applied += skipped + 1
            skipped, expected = 0, moved
            if why and report is not None:
                report(row, why)
        if skipped < 0:
            continue
    return applied
