"""An organization process for the crash-safety test: it admits a workload of
executions under fixed ask ids, one a round, and pumps until every one has
settled, then prints `settled N` and exits 0. It prints
`ready` once it has rebuilt its state, so a test can kill it mid-work. Killed at any point and started
again, it rebuilds from the record and carries on.

    python crash_worker.py PROJECT_ROOT [EXECUTIONS]

The definition has 3 steps with a child and retries: `plan` (organism);
`sub` (a child whose leaf `w` is judged by the shipped agent through the
offline model, failing its first attempt one time in three
and every attempt one time in ten, so some executions fail from the child up) beside `check`
(analysis, by a journaling service that fails a first attempt one time in
four); then `settle` (organism). The service journals every act in its own
SQLite file before it answers, so after a kill it answers from that journal
or, when it has no entry, truthfully says it did not act.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from pathlib import Path

from hale_runtime.catalog import WorkflowCatalog
from hale_runtime.catalog.callsite import override
from hale_runtime.engine import BudgetPolicy, Engine
from hale_runtime.memory import open_memory
from hale_runtime.performers import (
    ACTED,
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    Performers,
    Reconciled,
    hookimpl,
    plugin_manager,
)
from hale_runtime.performers.shipped import AgentPerformer
from hale_runtime.record import Record

PER_ROUND = 1


def share(attempt: str, one_in: int) -> bool:
    """True for a fixed share of units (by the digest of the unit's id)."""
    digest = int(hashlib.sha256(attempt.rsplit("/", 1)[0].encode()).hexdigest()[:8], 16)
    return digest % one_in == 0


def fails_first(attempt: str, one_in: int) -> bool:
    return attempt.endswith("/a0") and share(attempt, one_in)


class JournalService:
    kind = "service"

    def __init__(self, path: Path):
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS acts (attempt TEXT PRIMARY KEY, outcome TEXT)")

    @hookimpl
    def hale_performers(self) -> list:
        return [self, FlakyAgent()]

    def offers(self, capability: str) -> bool:
        return capability == "analysis"

    def deliver(self, work, ctx) -> Answer:
        outcome = FAILED if fails_first(work.attempt, 4) else SUCCEEDED
        self.db.execute("INSERT OR REPLACE INTO acts VALUES (?, ?)", (work.attempt, outcome))
        return Answer(outcome, "checked")

    def reconcile(self, work, ctx) -> Reconciled:
        row = self.db.execute(
            "SELECT outcome FROM acts WHERE attempt = ?", (work.attempt,)
        ).fetchone()
        if row is None:
            return Reconciled(NOT_ACTED)
        return Reconciled(ACTED, Answer(row[0], "checked (from the journal)"))


class FlakyAgent(AgentPerformer):
    def deliver(self, work, ctx) -> Answer:
        answer = super().deliver(work, ctx)
        if answer.outcome == SUCCEEDED and (
            fails_first(work.attempt, 3) or share(work.attempt, 10)
        ):
            answer.outcome, answer.detail = FAILED, "not convinced"
        return answer


def catalog():
    host = WorkflowCatalog()
    with override("dna/org/own_workflows.hl:1:1"):
        assert host.define("crash-sub", 1, "record", "a judgment") == ""
        assert (
            host.leaf("crash-sub", 1, 0, "w", {"objective": "weigh {n}", "requires": "judgment"}, 3)
            == ""
        )
        assert host.occurs("crash-sub", 1, "skip", "n") == ""
        assert host.define("crash-three", 1, "record record record", "three steps") == ""
        assert (
            host.leaf(
                "crash-three", 1, 0, "plan", {"objective": "plan {n}", "requires": "organism"}, 1
            )
            == ""
        )
        assert host.child("crash-three", 1, 1, "sub", "crash-sub") == ""
        assert (
            host.leaf(
                "crash-three", 1, 1, "check", {"objective": "check {n}", "requires": "analysis"}, 2
            )
            == ""
        )
        assert (
            host.leaf(
                "crash-three",
                1,
                2,
                "settle",
                {"objective": "settle {n}", "requires": "organism"},
                1,
            )
            == ""
        )
        assert host.occurs("crash-three", 1, "skip", "n") == ""
    return host.seal("dna/org/workflows.hl")


def main(root: Path, executions: int) -> int:
    record = Record.open(root)
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    service = JournalService(root / ".git" / "hale" / "service-journal.sqlite3")
    performers = Performers(plugin_manager(service, entry_points=False))
    engine = Engine(record, memory, performers, budget=BudgetPolicy("day", 0))
    cat = catalog()
    print("ready", flush=True)
    n = 0
    while True:
        for _ in range(PER_ROUND):
            if n < executions:
                inputs = {"n": str(n)}
                engine.admit(
                    cat.bind("crash-three", inputs=inputs), f"ask-{n}", "crash-test", inputs
                )
                n += 1
        engine.step()
        open_tasks = engine.state.open
        if n >= executions and not open_tasks and not engine.inbox:
            break
    print(f"settled {len(engine.state.asks_settled) + len(engine.state.asks)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 200))
