"""Whose an admitted ask is, over a shared record: the intake's rule, in one place.

The intake admits an ask only when its organization owns it; the head hands
a leg, and the Settler answers for, only the attempts of tasks its
organization owns. All three decide by `Owners`, fed the record row by row:
the owner the record names for the position the ask was for (its `--to`,
else the Leader's), else the asker's own. It reads rows and nothing else,
so the asks and the head both stand on it without standing on each other.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.record import kinds


def filled_position(key: str, body: dict[str, Any]) -> str:
    """The `position:<name>` a `position.filled` row fills."""
    name = str(body.get("position") or key)
    return name if name.startswith("position:") else f"position:{name}"


class Owners:
    """Whose an admitted ask is over a shared record, by the intake's rule: the
    owner the record names for the position the ask was for (its `--to`, else
    the Leader's), else the asker's own. Fed row by row (`note`)."""

    def __init__(self) -> None:
        self.positions: dict[str, str] = {}  # position -> the owner the record names
        self.asked: dict[str, str] = {}  # intent -> the asker's owner
        self.to: dict[str, str] = {}  # intent -> the position it was offered for

    def snapshot(self) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """The fold as plain data (a checkpoint's part: the Settler's)."""
        return dict(self.positions), dict(self.asked), dict(self.to)

    @classmethod
    def restore(cls, data: tuple[dict[str, str], ...] | list[dict[str, str]]) -> Owners:
        owners = cls()
        positions, asked, to = data
        owners.positions, owners.asked, owners.to = dict(positions), dict(asked), dict(to)
        return owners

    def note(self, kind: str, key: str, body: dict[str, Any]) -> None:
        if kind == kinds.POSITION_FILLED and body.get("owner"):
            self.positions[filled_position(key, body)] = str(body["owner"])
        elif kind == kinds.INTENT_REQUESTED and body.get("owner"):
            self.asked[key] = str(body["owner"])
        elif kind == kinds.INTENT_OFFERED and body.get("position"):
            self.to[key] = str(body["position"])

    def of(self, intent: str) -> str:
        """The organization owning the task admitted for `intent` ("" when none is named)."""
        position = self.to.get(intent) or "position:leader"
        return self.positions.get(position) or self.asked.get(intent, "")
