"""The face tests' organization played in-process (an engine and a Settler
over the same record) and what a served face hands a test."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import scenario

from hale_runtime.face.server import FaceServer
from hale_runtime.record import Record

WRITER = "org@box:c0ffee00"


class Organization:
    """What a running organization would do with the face's asks, done on demand."""

    def __init__(self, root: Path):
        from hale_runtime.asks.settle import Settler
        from hale_runtime.engine import Engine
        from hale_runtime.memory import open_memory
        from hale_runtime.performers import Performers, plugin_manager

        self.clock = scenario.HandClock(scenario.DAY0 + 600_000)
        self.record = Record.open(root, clock=self.clock, who=WRITER, sign=False)
        memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
        performers = Performers(plugin_manager(scenario.Unsure(), entry_points=False))
        self.engine = Engine(self.record, memory, performers, clock=self.clock)
        self.settler = Settler(self.record, self.engine)
        self.catalog = scenario.catalog_of(scenario.case_definitions)

    def admit_asks(self) -> list[str]:
        """Admit close-month for every ask in the record not yet admitted; the tasks."""
        self.clock.advance(60_000)
        born = []
        for row in self.record.rows(kind="intent.requested"):
            if self.record.admission(row.key) is None:
                born.append(self.engine.admit(self.catalog.bind("close-month"), row.key, "leader"))
        self.engine.pump()
        return [b.task for b in born]

    def settle_resolves(self) -> list[str]:
        """Answer every person's resolve asked, as the Settler does; what it said."""
        from hale_runtime.nerves import Message
        from hale_runtime.node.relay import message_of

        self.clock.advance(60_000)
        said = []
        for row in self.record.rows(kind="attempt.outcome.requested"):
            said.append(self.settler.on_outcome_requested(Message(0, row.kind, message_of(row))))
        return said


@dataclass
class Served:
    root: Path
    face: FaceServer
    org: Organization
