"""What the Board is told: a spent budget window, until the next one starts.

The engine writes `budget.exhausted` (key `budget/<window>`) once for a
window and then calls its `tell_board`; the organization passes `told`,
which says it on the organization's log and publishes it on the nerves
(`board.told`, for a face or any listener). Where the Board looks, the
verbs read it from the record: `exhausted_now` is the newest
`budget.exhausted` whose window is the one now running (a label
`day/<date>` or `week/<monday>` is compared with the label of now under
the same window; a `none` window never ends), so the line goes away by
itself when the next window starts, with nothing written. `budget_line` is
the line `hale dna review` and `hale dna status` print.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from hale_runtime.record import kinds

SUBJECT = "board.told"


def exhausted_now(record: Any, now_ms: int | None = None) -> dict[str, Any] | None:
    """The body of the `budget.exhausted` of the window running now (None: none is spent)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    for row in reversed(record.rows(kind=kinds.BUDGET_EXHAUSTED)):
        window = str(row.body.get("window") or row.key.removeprefix("budget/"))
        if current(window, now):
            return dict(row.body, window=window)
    return None


def current(window: str, now_ms: int) -> bool:
    """Whether the window labelled `window` is the one `now_ms` falls in."""
    # the engine's package imports the whole engine: `status` asks this only
    # when a budget.exhausted row exists, so it pays that import only then
    from hale_runtime.engine.budget import WINDOWS, Budget, BudgetPolicy

    kind = window.split("/", 1)[0]
    if kind not in WINDOWS:
        return False
    return Budget(BudgetPolicy(kind, 1)).window_of(now_ms) == window


def budget_line(body: dict[str, Any]) -> str:
    """`budget: window day/2026-12-06 exhausted (spent 1200 of 1000 micro-dollars, 3 calls); …`."""
    return (
        f"budget: window {body['window']} exhausted (spent {body.get('spent_micros', '?')} of "
        f"{body.get('allowance_micros', '?')} micro-dollars, {body.get('calls', '?')} calls); "
        "model-backed work waits for the next window"
    )


def teller(nerves: Any, say: Callable[[str], None] | None = None) -> Callable[[dict], None]:
    """The organization's `tell_board`: the line on its log, the body on the nerves."""
    say = say or (lambda line: print(f"hale organization: {line}", file=sys.stderr, flush=True))

    def told(body: dict[str, Any]) -> None:
        say(f"the Board is told: {budget_line(body)}")
        try:
            nerves.publish(SUBJECT, {"kind": kinds.BUDGET_EXHAUSTED, "body": body})
        except Exception as error:  # the row is written and the line said: telling is best effort
            say(f"the Board's nerves did not take it: {error}")

    return told
