"""Reading a row's body as its act, without what the writer stamps on every
row it writes under a lease (`epoch`, record/epochs.py)."""

from __future__ import annotations

from typing import Any


def without_epoch(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "epoch"}
