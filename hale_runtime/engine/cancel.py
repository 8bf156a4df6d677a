"""Cancelling a root, asked as a row and answered as one.

Whoever asks (`hale dna task cancel`, or anything else that can write a row)
writes `workflow.cancel_requested` under a request id of its own
(`cr-<12 hex>`, so every ask is answered on its own even for the same
task), its body naming the task and who asks. A node relays it; the
organization's `Canceller` hears it as `WorkflowCancelRequested` and
answers each request once: it looks for its answer in the record first (a
relay repeated before the answer was read), then has the engine cancel the
root (`Engine.cancel`: `workflow.cancelled`, every attempt still out
fenced, the tree settled `cancelled`) and writes
`workflow.cancel_answered {task, cancelled, why}` in the same round's
commit. A task the record never admitted, a child, or one that has settled
is answered with why, and nothing else is written. Over a shared record
(`not_ours`, the Settler's owner rule) a task another organization owns is
left to it: this one writes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from hale_runtime.record import kinds

REQUESTED, ANSWERED = kinds.CANCEL_REQUESTED, kinds.CANCEL_ANSWERED


def request(record: Any, task: str) -> Any:
    """Write the ask to cancel `task`; its row (the key is the request id)."""
    return record.append(REQUESTED, f"cr-{secrets.token_hex(6)}", {"task": task, "by": record.who})


def answer_of(record: Any, request_id: str) -> Any:
    """The answer the record holds for a request, or None."""
    rows = record.rows(kind=ANSWERED, key=request_id)
    return rows[0] if rows else None


class Canceller:
    def __init__(self, record: Any, engine: Any, not_ours: Callable[[str], str] | None = None):
        self.record, self.engine = record, engine
        self.not_ours = not_ours or (lambda task: "")

    def on_cancel_requested(self, message: Any) -> str:
        """WorkflowCancelRequested (a relayed row): cancel once; what was answered."""
        request_id = str(message.body.get("key", ""))
        asked = message.body.get("body") or {}
        if not request_id or answer_of(self.record, request_id) is not None:
            return "answered before"
        task = asked.get("task")
        if not isinstance(task, str) or not task:
            return self._answer(request_id, "", "the request names no task")
        self.engine.catch_up()
        not_ours = self.not_ours(task)
        if not_ours:
            return not_ours
        by = str(asked.get("by") or message.body.get("who") or "")
        return self._answer(request_id, task, self.engine.cancel(task, by=by))

    def _answer(self, request_id: str, task: str, why: str) -> str:
        body = {"task": task, "cancelled": not why, "why": why}
        self.engine.emit(ANSWERED, request_id, body)
        self.engine.pump()
        return why or f"cancelled {task}"
