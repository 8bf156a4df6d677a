"""A performer acts only after its claim is on disk: the engine's round is one
journal sync, and delivery follows it (durable, as a node runs by default)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from engine_helpers import Scripted, catalog_of, work

from hale_runtime.engine import plan_of

CLAIMED = '"kind":"attempt.claimed"'


class Watching(Scripted):
    def __init__(self, events: list[str]):
        super().__init__("agent")
        self.events = events

    def deliver(self, w, ctx):
        self.events.append(f"acted {w.attempt}")
        return super().deliver(w, ctx)


def test_a_claim_is_synced_before_its_performer_acts(org, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "full")
    events: list[str] = []
    real = os.fdatasync

    def observed(fd: int) -> None:
        real(fd)
        synced = Path(os.readlink(f"/proc/self/fd/{fd}")).read_text(errors="replace")
        events.append(f"synced {synced.count(CLAIMED)} claim(s)")

    monkeypatch.setattr(os, "fdatasync", observed)
    org.plugins = (Watching(events),)

    def one(c) -> None:
        assert c.define("one", 1, "record", "one leaf") == ""
        assert c.leaf("one", 1, 0, "a", work("do it", "agent"), 1) == ""

    e = org.engine()
    e.admit(plan_of(catalog_of(one).bind("one")), "ask-1", "leader")
    e.pump()
    assert e.settled("t1") == "succeeded"
    acted = events.index("acted t1/wf1/s0/a/a0")
    assert events[acted - 1] == "synced 1 claim(s)"  # the claim reached the disk first
    assert events[acted + 1 :] == ["synced 1 claim(s)"]  # then one sync: the outcome's round
