"""The host bindings the Scheduler (`dna/core/scheduler.hl`) runs against.

`Cron` hands out one handle per distinct expression, compiled once
(cron.py). `ScheduleHost` answers from the catalog, memory's graph (None
when no memory is named) and the workflow engine, and keeps the rows a
tick decides in `rows`, so the locus writes them as one commit. `load`
builds the Scheduler: the genome's own `dna/core/scheduler.hl` when it is
one (it defines `tick`), else the toolchain's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hale_runtime.record import kinds
from hale_runtime.schedules import cron
from hale_runtime.schedules.terms import stamp
from hale_runtime.toolchain import toolchain_root

ENTRY = "dna/core/scheduler.hl"
MOD = "vendor/dna/mod.hl"
TOOLCHAIN_ENTRY = "vendor/dna/templates/dna/core/scheduler.hl"

RowItem = tuple[str, str, dict[str, Any]]


class Clock:
    def __init__(self, now: Callable[[], int]):
        self._now = now

    def now(self) -> int:
        return self._now()


class Cron:
    """Compiled crons by handle; one handle per distinct expression. Answers
    are memoised by (handle, time): a tick asks the same few minutes of the
    same few expressions for many schedules."""

    MEMO = 100_000

    def __init__(self) -> None:
        self.compiled: list[cron.Cron] = []
        self.handles: dict[str, int] = {}
        self.memo: dict[tuple[int, ...], int] = {}

    def check(self, expr: str) -> str:
        return cron.check(expr)

    def compile(self, expr: str) -> int:
        handle = self.handles.get(expr)
        if handle is None:
            handle = self.handles[expr] = len(self.compiled)
            self.compiled.append(cron.compile_cron(expr))
        return handle

    def _memo(self, key: tuple[int, ...], compute: Callable[[], int]) -> int:
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) >= self.MEMO:
                self.memo.clear()
            found = self.memo[key] = compute()
        return found

    def next_after(self, handle: int, at: int) -> int:
        c = self.compiled[handle]
        return self._memo((0, handle, at), lambda: c.next_after(at))

    def latest(self, handle: int, at: int) -> int:
        c = self.compiled[handle]
        return self._memo((1, handle, at), lambda: c.latest_at_or_before(at))

    def count(self, handle: int, first: int, last: int) -> int:
        c = self.compiled[handle]
        return self._memo((2, handle, first, last), lambda: c.count(first, last))


Admit = Callable[[str, int], str]


class ScheduleHost:
    """The catalog, the graph, the engine and the record, as the Scheduler asks them."""

    def __init__(
        self,
        catalog: Any,
        memory: Any | None,
        admit: Admit | None = None,
        is_open: Callable[[str], bool] | None = None,
    ):
        self.catalog, self.memory = catalog, memory
        self._admit = admit or (lambda schedule, at: "refused: no engine runs here")
        self._is_open = is_open or (lambda task: False)
        self.rows: list[RowItem] = []

    def take_rows(self) -> list[RowItem]:
        rows, self.rows = self.rows, []
        return rows

    # -- the catalog --------------------------------------------------------------
    def definition_refusal(self, definition: str) -> str:
        from hale_runtime.catalog import Refused

        try:
            self.catalog.bind(definition)
        except Refused as refused:
            return refused.reason
        return ""

    def definition_inputs(self, definition: str) -> list[str]:
        d = self.catalog.newest(definition)
        return list(d.inputs) if d else []

    def definition_stores(self, definition: str) -> list[str]:
        d = self.catalog.newest(definition)
        return [s.store for s in d.steps] if d else []

    def overlaps(self, definition: str) -> bool:
        d = self.catalog.newest(definition)
        return bool(d and d.mode == "overlap")

    def args_refusal(self, args: str) -> str:
        try:
            json.loads(args)
        except ValueError as e:
            return str(e)
        return ""

    # -- memory's graph -------------------------------------------------------------
    def memory_named(self) -> bool:
        return self.memory is not None

    def holder_of(self, position: str) -> str:
        return (self.memory.holder_of(position) or "") if self.memory is not None else ""

    def reaches(self, position: str, store: str) -> bool:
        """A position reaches every store unless the graph lists what it reaches."""
        if self.memory is None:
            return False
        src = f"position:{position}"
        listed = [e.dst for e in self.memory.edges("reaches") if e.src == src]
        return not listed or f"store:{store}" in listed

    def is_holder(self, who: str, holder: str) -> bool:
        return is_holder(who, holder)

    # -- the engine and the record ----------------------------------------------------
    def admit(self, schedule: str, at: int) -> str:
        return self._admit(schedule, at)

    def is_open(self, task: str) -> bool:
        return self._is_open(task)

    def skipped(self, schedule: str, at: int, open: str) -> None:
        body = {"occurrence": at, "at": stamp(at), "open": open}
        self.rows.append((kinds.SCHEDULE_SKIPPED, schedule, body))

    def missed(self, schedule: str, first: int, last: int, count: int) -> None:
        body = {
            "first": first,
            "last": last,
            "count": count,
            "from": stamp(first),
            "to": stamp(last),
        }
        self.rows.append((kinds.SCHEDULE_MISSED, schedule, body))


def is_holder(who: str, holder: str) -> bool:
    """Whether `who` (a writer, `<name>@<host>:<clone>`) is `holder`, or is named by it."""
    return who == holder or who.partition("@")[0] == holder


def bindings() -> dict[str, Any]:
    """Every host item `vendor/dna` declares, bound."""
    from hale_runtime.catalog.binding import WorkflowCatalog

    return {
        f"{MOD}::WorkflowCatalog": WorkflowCatalog,
        f"{MOD}::Clock": Clock,
        f"{MOD}::Cron": Cron,
        f"{MOD}::ScheduleHost": ScheduleHost,
    }


def load(root: Path | None) -> tuple[Any, str]:
    """(the built Scheduler program, its entry): the genome's own Scheduler when
    it is one (it defines `fn tick`), else the toolchain's. Build errors raise
    HaleError with their diagnostics."""
    from hale_lang.build import build

    own = Path(root) / ENTRY if root is not None else None
    if own is not None and own.is_file() and "fn tick(" in own.read_text(encoding="utf-8"):
        return build(root, [ENTRY], bindings=bindings()), ENTRY
    return build(toolchain_root(), [TOOLCHAIN_ENTRY], bindings=bindings()), TOOLCHAIN_ENTRY
