"""Asking, from any clone: the `intent.requested` row and its answer.

`request` writes the ask under an intent id of its own (`i-<12 hex>`): the
objective, its target, `--judgment` or the position it is `--to`, who asked
and, over a shared record, the asker's owner. `answer` is the
organization's `intent.offered` or `intent.refused` under that id once this
clone holds it (the verb waits for it: cli/organism.py), with the task: the
`workflow.admitted` whose ask is the intent.
"""

from __future__ import annotations

import os
import secrets

from hale_runtime.record import Record, Row, kinds

ANSWERS = (kinds.INTENT_OFFERED, kinds.INTENT_REFUSED)


def request(
    record: Record, objective: str, target: str = ".", judgment: bool = False, to: str = ""
) -> Row:
    """Write the ask; its row (the key is the intent id)."""
    body: dict[str, object] = {"objective": objective, "target": target or ".", "by": record.who}
    if judgment:
        body["judgment"] = True
    if to:
        body["to"] = to if to.startswith("position:") else f"position:{to}"
    owner = os.environ.get("HALE_DNA_OWNER", "").strip()
    if owner:
        body["owner"] = owner
    return record.append(kinds.INTENT_REQUESTED, f"i-{secrets.token_hex(6)}", body)


def answer(record: Record, intent: str) -> tuple[Row, str] | None:
    """(the answer row, the task id when admitted), once this clone holds the answer."""
    found = record.rows(kind=ANSWERS, key=intent)
    return (found[0], task_of(record, intent, found[0].seq)) if found else None


def task_of(record: Record, intent: str, since: int = 0) -> str:
    """The root task admitted for the intent ("" when none is); its admission
    follows the intent's answer, so a reader that has the answer's seq starts there."""
    for row in record.scan(max(since - 1, 0), kind=kinds.WORKFLOW_ADMITTED):
        if row.body.get("ask") == intent:
            return row.key
    return ""
