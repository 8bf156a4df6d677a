"""Bodies of one record, under hypothesis: an intent is answered once, decided
from the record, and the Leader asked at most once, wherever a body dies.

Three clones of one record (a real bare remote) share one memory. Bodies
start, are handed asks (planned and judgment ones) in any order, and die at
any sync of an offer or just before they admit; several run at once, as
they do while a lease changes hands or a body of another owner shares the
record; claims run out whenever hypothesis says. A body killed comes back
only before the claims it held run out, or never (its host is gone, and
the rows it had not pushed with it). At the end a live body is handed every
ask again, and a fresh clone of the remote must hold: one answer an ask, at
most one Leader's word, one root an offered ask; and no Leader asked twice
by bodies still around.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pygit2
from ask_helpers import Project, Scripted, make_project, relayed
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from hale_runtime.asks.intake import PLAN_TTL_S
from hale_runtime.record import Record

ASKER = "ann@box:c1"
SIDES = ("a", "b", "c")
KILLS = st.sampled_from([None, None, 1, 2, 3, 4, "admit"])  # before the n-th sync of an offer


class Killed(BaseException):
    """The body's process dies here (no handler of ours catches a BaseException)."""


class Takeovers(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="hale-takeovers-"))
        self.remote = self.tmp / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.remote)], check=True)
        self.projects = {s: self._clone(s, make_project) for s in SIDES}
        self.projects["a"].memory().close()  # migrated once, then shared
        for s in SIDES[1:]:  # one memory for every body
            self.projects[s].memory_path.parent.mkdir(parents=True, exist_ok=True)
            self.projects[s].memory_path.symlink_to(self.projects["a"].memory_path)
        self.asker = Record.open(self._clone("asker", _bare_project).root, who=ASKER)
        self.words = {s: Scripted('{"kind": "product"}') for s in SIDES}
        self.live: dict[str, object] = {}
        self.dead: set[str] = set()  # killed, may come back before a claim runs out
        self.gone: set[str] = set()  # killed, never back
        self.asks: list[tuple[str, object]] = []  # (objective, row)

    def _clone(self, side: str, make) -> Project:
        root = make(self.tmp / side, f"{side * 8}"[:8].ljust(8, "0"))
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(self.remote)],
                       check=True)  # fmt: skip
        return Project(root)

    def _start(self, side: str):
        node = self.projects[side].node(f"{side}@box:{side * 8}", provider=self.words[side])
        node.intake.sync = node.record.sync
        node.record.sync()  # an organization syncs as it starts: what it left goes out
        return node

    # ---- the rules ---------------------------------------------------------------

    @initialize(judgment=st.booleans())
    def two_bodies_and_an_ask(self, judgment: bool) -> None:
        """Two bodies already running (a lease changing hands), and an ask."""
        self.start("a")
        self.start("b")
        self.ask(judgment)

    @precondition(lambda self: len(self.asks) < 3)
    @rule(judgment=st.booleans())
    def ask(self, judgment: bool) -> None:
        objective = f"objective {len(self.asks)}"
        body = {"objective": objective, "target": ".", "by": ASKER}
        row = self.asker.append("intent.requested", f"i-{len(self.asks)}",
                                {**body, **({"judgment": True} if judgment else {})})  # fmt: skip
        self.asker.sync()
        self.asks.append((objective, row))

    @precondition(lambda self: self.live and self.asks)
    @rule(who=st.integers(0, 2), which=st.integers(0, 2), kill=KILLS)
    def offer(self, who: int, which: int, kill) -> None:
        side = sorted(self.live)[who % len(self.live)]
        node = self.live[side]
        _, row = self.asks[which % len(self.asks)]
        _arm(node, kill)
        try:
            node.intake.on_intent_requested(relayed(row))
        except Killed:
            self._die(side)
            return
        node.intake.sync = node.record.sync  # it lived: disarmed
        node.intake.__dict__.pop("_admit", None)

    @precondition(lambda self: self.live)
    @rule(who=st.integers(0, 2))
    def kill(self, who: int) -> None:
        self._die(sorted(self.live)[who % len(self.live)])

    @precondition(lambda self: self.live)
    @rule(who=st.integers(0, 2))
    def sync(self, who: int) -> None:
        """A running organization's sync between asks."""
        self.live[sorted(self.live)[who % len(self.live)]].record.sync()

    @rule(side=st.sampled_from(SIDES))
    def start(self, side: str) -> None:
        if side in self.gone or side in self.live:
            return
        self.dead.discard(side)
        self.live[side] = self._start(side)

    @precondition(lambda self: set(SIDES) - self.dead - self.gone)
    @rule()
    def claims_run_out(self) -> None:
        with _sqlite(self.projects["a"].memory_path) as db:
            db.execute("UPDATE claims SET until_ms = until_ms - ? WHERE key LIKE 'plan/%'",
                       (int(PLAN_TTL_S * 1000) + 1000,))  # fmt: skip
        self.gone |= self.dead  # a body still down now is gone, with what it did not push
        self.dead.clear()

    def _die(self, side: str) -> None:
        self.live.pop(side).memory.close()
        self.dead.add(side)

    # ---- what must hold ----------------------------------------------------------

    @invariant()
    def no_body_still_around_asked_the_leader_twice(self) -> None:
        for objective, _ in self.asks:
            asked = sum(
                _leader_asked(self.words[s], objective) for s in SIDES if s not in self.gone
            )
            assert asked <= 1, f"the Leader was asked {asked} times on {objective}"

    def teardown(self) -> None:
        try:
            if self.asks:
                self._drain()
                self._check()
        finally:
            for node in self.live.values():
                node.memory.close()
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _drain(self) -> None:
        """A live body, claims run out, every ask handed to it again: all answered."""
        if not self.live:
            self.start(next(s for s in SIDES if s not in self.gone))
        self.claims_run_out()
        node = next(iter(self.live.values()))
        for _, row in self.asks:
            node.intake.on_intent_requested(relayed(row))
        for live in self.live.values():  # each organization's own sync, as it runs
            live.record.sync()

    def _check(self) -> None:
        fresh = Record.open(self._clone("fresh", _bare_project).root)
        fresh.sync()
        answers = Counter(r.key for r in fresh.rows(kind=("intent.offered", "intent.refused")))
        words = Counter(r.key for r in fresh.rows(kind="model.called"))
        admitted = fresh.rows(kind="workflow.admitted")
        roots = Counter(r.body.get("ask") for r in admitted if "plan" in r.body)
        for _, row in self.asks:
            assert answers[row.key] == 1, f"{row.key} answered {answers[row.key]} times"
            assert words[f"plan/{row.key}"] <= 1, f"two Leader's words on {row.key}"
            offered = fresh.rows(kind="intent.offered", key=row.key)
            assert roots[row.key] == len(offered), f"{row.key} admitted {roots[row.key]} times"
        self.no_body_still_around_asked_the_leader_twice()


def _arm(node, kill) -> None:
    """Make the body die at the `kill`-th sync of this offer, or just before it admits."""
    if kill == "admit":
        node.intake._admit = _die_now
        return
    real, calls = node.record.sync, [0]

    def sync():
        calls[0] += 1
        if calls[0] == kill:
            raise Killed
        return real()

    node.intake.sync = sync


def _die_now(*_args, **_kwargs):
    raise Killed


def _leader_asked(provider: Scripted, objective: str) -> int:
    return sum(p.startswith("You are the Leader") and objective in p for p in provider.prompts)


def _bare_project(path: Path, clone: str) -> Path:
    """A clone that only asks or reads: a repository with its clone id, no genome."""
    repo = pygit2.init_repository(str(path))
    repo.config["hale.clone"] = clone
    return path


def _sqlite(path: Path):
    import sqlite3

    return sqlite3.connect(path)


Takeovers.TestCase.settings = settings(
    max_examples=int(os.environ.get("HALE_FUZZ_EXAMPLES", "12")), stateful_step_count=12, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
test_takeovers = Takeovers.TestCase
