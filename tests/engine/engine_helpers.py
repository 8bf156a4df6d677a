"""Helpers for the engine's tests: real repositories, real SQLite, a hand clock,
definitions built through the catalog's host binding, and scripted performers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from support.clock import HandClock  # noqa: F401 (the engine tests take it from here)
from support.projects import make_project  # noqa: F401 (the tests take it from here)

from hale_runtime.catalog import WorkflowCatalog
from hale_runtime.catalog.callsite import override
from hale_runtime.engine import BudgetPolicy, Engine
from hale_runtime.memory import open_memory
from hale_runtime.performers import (
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    Pending,
    Performers,
    Reconciled,
    hookimpl,
    plugin_manager,
)
from hale_runtime.record import Record

START_MS = 1_764_374_400_000  # 2025-11-29 00:00 UTC, a Saturday


def work(objective: str, requires: str = "analysis") -> dict[str, str]:
    return {"objective": objective, "requires": requires}


def catalog_of(build: Callable[[WorkflowCatalog], None]):
    host = WorkflowCatalog()
    with override("dna/org/own_workflows.hl:1:1"):
        build(host)
    return host.seal("dna/org/workflows.hl")


@dataclass
class Org:
    root: Path
    clock: HandClock
    plugins: tuple = ()
    budget: BudgetPolicy | None = None
    engines: list[Engine] = field(default_factory=list)

    def engine(self) -> Engine:
        """A new engine over the project's record and memory (a restart, after the first)."""
        record = Record.open(self.root, clock=self.clock, who="org@box:c0ffee00")
        memory = open_memory(self.root / ".git" / "hale" / "memory.sqlite3")
        memory.migrate()
        performers = Performers(plugin_manager(*self.plugins, entry_points=False))
        e = Engine(record, memory, performers, budget=self.budget, clock=self.clock)
        self.engines.append(e)
        return e

    def rows(self, kind: str | None = None, prefix: str | None = None):
        return Record.open(self.root).rows(kind=kind, key_prefix=prefix)

    def lines(self, prefix: str = "") -> list[str]:
        return [f"{r.kind} {r.key}" for r in self.rows(prefix=prefix)]


class Scripted:
    """A plugin providing one performer of `kind` answering from a script.

    `script[attempt id]` is "succeeded", "failed" or "later" (answer nothing now);
    ids not in the script succeed. `acted` remembers every delivery;
    `reconcile_as` is what it says after a restart."""

    def __init__(self, kind: str, script: dict[str, str] | None = None, offers=None):
        self.kind = kind
        self.script = script or {}
        self.offers_words = offers
        self.acted: list[str] = []
        self.reconcile_as = Reconciled(NOT_ACTED)

    @hookimpl
    def hale_performers(self) -> list:
        return [self]

    def offers(self, capability: str) -> bool:
        return self.offers_words is None or capability in self.offers_words

    def deliver(self, w, ctx):
        self.acted.append(w.attempt)
        said = self.script.get(w.attempt, SUCCEEDED)
        if said == "later":
            return Pending()
        return Answer(said, f"{self.kind} said {said}")

    def reconcile(self, w, ctx):
        return self.reconcile_as


def close_month(c) -> None:
    """close-month: step 0 = leaf `a` (judgment, 2 attempts) + child `b`
    (sub, one judgment leaf); step 1 = leaf `post` (human). Takes `period`."""
    assert c.define("sub", 1, "record", "a sub-execution") == ""
    assert c.leaf("sub", 1, 0, "think", work("think it over", "judgment"), 1) == ""
    assert c.define("close-month", 1, "record record", "close the month") == ""
    assert c.leaf("close-month", 1, 0, "a", work("reconcile {period}", "judgment"), 2) == ""
    assert c.child("close-month", 1, 0, "b", "sub") == ""
    assert c.leaf("close-month", 1, 1, "post", work("post {period}", "human"), 1) == ""
    assert c.occurs("close-month", 1, "skip", "period") == ""
