"""Helpers for the asks' and the head's tests: a real project with the generated
genome, real SQLite memory, a hand clock, and model providers that answer from
a script (plugged in through pluggy, as any provider is)."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from support.clock import HandClock  # noqa: F401 (the ask tests take it from here)
from support.projects import make_project as _make_project

from hale_runtime.asks import Ask, Brief, Inline, Intake
from hale_runtime.asks.leg_performer import LegPlugin
from hale_runtime.asks.settle import Settler
from hale_runtime.engine import BudgetPolicy, Engine
from hale_runtime.head import Head
from hale_runtime.memory import open_memory
from hale_runtime.nerves import Message
from hale_runtime.node.relay import message_of
from hale_runtime.performers import Performers, hookimpl, plugin_manager
from hale_runtime.record import Record, Row

START_MS = 1_764_374_400_000  # 2025-11-29 00:00 UTC
TEMPLATE: list[Path] = []


class Scripted:
    """A model provider answering `answer` at `price` (None: price not known beforehand)."""

    def __init__(self, answer: str = "", price: int | None = 1000, cost: int | None = None):
        self.name, self.answer, self.known, self.cost = "scripted", answer, price, cost
        self.prompts: list[str] = []
        self.gate: threading.Event | None = None  # when set up, a call waits for it

    def price(self, prompt: str) -> int | None:
        return self.known

    def complete(self, prompt: str) -> tuple[str, int]:
        self.prompts.append(prompt)
        if self.gate is not None:
            self.gate.wait(30)
        cost = self.cost if self.cost is not None else (self.known or 0)
        return self.answer or "considered: nothing in particular", cost


class Failing(Scripted):
    def complete(self, prompt: str) -> tuple[str, int]:
        raise ConnectionError("the model endpoint refused the connection")


class ProviderPlugin:
    def __init__(self, provider: Any):
        self.provider = provider

    @hookimpl
    def hale_model_provider(self) -> object:
        return self.provider


@cache
def catalog_of_new_genome() -> Any:
    """The catalog of the generated genome (built once for the whole run)."""
    import tempfile

    from hale_runtime.catalog import load_catalog

    root = make_project(Path(tempfile.mkdtemp(prefix="hale-asks-genome-")))
    return load_catalog(root)


def age_claim(memory_path: Path, key: str, ms: int) -> None:
    """Move a claim's expiry `ms` earlier on the database's clock: time passing, for it."""
    with sqlite3.connect(memory_path) as db:
        db.execute("UPDATE claims SET until_ms = until_ms - ? WHERE key = ?", (ms, key))


@dataclass
class Node:
    """One organization over the project: its record, memory, engine, intake and settler."""

    record: Record
    memory: Any
    engine: Engine
    intake: Intake
    settler: Settler

    def offer(self, intent: str, **body: Any) -> str:
        return self.intake.offer(Ask.from_body(intent, body))


@dataclass
class Project:
    root: Path
    clock: HandClock = field(default_factory=HandClock)

    @property
    def memory_path(self) -> Path:
        return self.root / ".git" / "hale" / "memory.sqlite3"

    def memory(self) -> Any:
        m = open_memory(self.memory_path)
        m.migrate()
        return m

    def record(self, who: str = "org@box:c0ffee00", sign: Any = True) -> Record:
        return Record.open(self.root, clock=self.clock, who=who, sign=sign)

    def node(self, holder: str = "org@box:c0ffee00", provider: Any = None, leader: bool = True,
             budget: BudgetPolicy | None = None, owner: str | None = None,
             executor: Any = None, brief: Brief | None = None,
             sign: Any = True) -> Node:  # fmt: skip
        record, memory = self.record(holder, sign), self.memory()
        plugins = [LegPlugin()] + ([ProviderPlugin(provider)] if provider else [])
        performers = Performers(plugin_manager(*plugins, entry_points=False))
        engine = Engine(record, memory, performers, budget=budget, clock=self.clock)
        said: list[str] = []
        intake = Intake(
            record, memory, engine, catalog_of_new_genome(), leader=leader,
            brief=lambda: brief or Brief("charter", "purpose"), provider=performers.provider,
            holder=holder, owner=owner, executor=executor or Inline(), say=said.append,
        )  # fmt: skip
        return Node(record, memory, engine, intake, Settler(record, engine, owner=owner))

    def head(self, who: str = "org@box:c0ffee00", lease_s: float = 60.0,
             owner: str | None = None) -> Head:  # fmt: skip
        return Head(self.record(who), self.memory(), lease_s, owner=owner)

    def rows(self, kind: Any = None, key: str | None = None) -> list[Row]:
        rows = Record.open(self.root).rows(kind=kind)
        return [r for r in rows if key is None or r.key == key]

    def lines(self) -> list[str]:
        return [f"{r.kind} {r.key}" for r in Record.open(self.root).rows()]


def relayed(row: Row) -> Message:
    """The message a node's relay publishes for a request row."""
    return Message(0, row.kind, message_of(row))


def ask_row(project: Project, objective: str, **extra: Any) -> Row:
    body = {"objective": objective, "target": ".", "by": "ann@box:c1", **extra}
    n = len(project.rows("intent.requested"))
    return project.record("ann@box:c1").append("intent.requested", f"i-{n:04d}", body)


def make_project(path: Path, clone: str = "c0ffee00") -> Path:
    """A project with the genome `hale dna new` writes, in a fresh git repository."""
    return _make_project(path, clone, new_genome=True)
