"""A performer acts only after its claim is on disk: the engine's round is one
journal sync, and delivery follows it (durable, as a node runs by default)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import Scripted, catalog_of, work

from hale_runtime.engine import plan_of
from hale_runtime.record import record

CLAIMED = '"kind":"attempt.claimed"'


class Watching(Scripted):
    def __init__(self, events: list[str]):
        super().__init__("agent")
        self.events = events

    def deliver(self, w, ctx):
        self.events.append(f"acted {w.attempt}")
        return super().deliver(w, ctx)


def one(c) -> None:
    assert c.define("one", 1, "record", "one leaf") == ""
    assert c.leaf("one", 1, 0, "a", work("do it", "agent"), 1) == ""


def settle_one_agent_leaf(org) -> None:
    """Admit a one-leaf workflow for the agent kind and pump it to its settlement."""
    e = org.engine()
    e.admit(plan_of(catalog_of(one).bind("one")), "ask-1", "leader")
    e.pump()
    assert e.settled("t1") == "succeeded"


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

    settle_one_agent_leaf(org)
    acted = events.index("acted t1/wf1/s0/a/a0")
    assert events[acted - 1] == "synced 1 claim(s)"  # the claim reached the disk first
    assert events[acted + 1 :] == ["synced 1 claim(s)"]  # then one sync: the outcome's round


def in_git(root: Path, text: str) -> bool:
    """Whether the record's commits, as git itself reads them, hold `text`."""
    shown = subprocess.run(
        ["git", "-C", str(root), "log", "-p", "refs/dna/record"], capture_output=True, text=True
    )
    return text in shown.stdout


def commits(root: Path) -> int:
    out = subprocess.run(["git", "-C", str(root), "rev-list", "--count", "refs/dna/record"],
                         capture_output=True, text=True)  # fmt: skip
    return int(out.stdout)


def three(c) -> None:
    assert c.define("three", 1, "record record record", "three steps") == ""
    for step, name in enumerate(("plan", "review", "settle")):  # steps the organism takes
        assert c.leaf("three", 1, step, name, work("do it", "organism"), 1) == ""


def test_a_pump_of_inline_rounds_reaches_git_as_one_commit(org, monkeypatch):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "full")
    monkeypatch.setattr(record, "HOLD_S", 60.0)  # however slow the machine: one hold
    e = org.engine()
    e.admit(plan_of(catalog_of(three).bind("three")), "ask-1", "leader")
    e.pump()  # four rounds, each journalled (and its claims in memory) before it delivers
    assert e.settled("t1") == "succeeded"
    assert commits(org.root) == 1
    assert in_git(org.root, '"kind":"workflow.settled"')


WRITER = """
import sys
from hale_runtime.record import Record
Record.open(sys.argv[1]).append("node.ping.requested", "while-it-works", {})
"""


def test_a_performer_that_is_not_inline_works_with_the_hold_let_go(org, monkeypatch):
    monkeypatch.setenv("HALE_DNA_DURABILITY", "full")
    seen: list[bool] = []

    class Looking(Scripted):  # may tell another process, which reads the record from git
        def deliver(self, w, ctx):
            seen.append(in_git(org.root, f'"key":"{w.attempt}","kind":"attempt.claimed"'))
            writer = subprocess.run(  # another writer of the clone is not kept waiting
                [sys.executable, "-c", WRITER, str(org.root)], capture_output=True, timeout=60
            )
            seen.append(writer.returncode == 0)
            return super().deliver(w, ctx)

    org.plugins = (Looking("agent"),)

    settle_one_agent_leaf(org)
    assert seen == [True, True]
    assert in_git(org.root, '"key":"while-it-works"')
