"""A record made by the engine itself, for the debugger's tests and bench.

`build(root)` runs, in one project: t1 retried (a0 failed, a1 succeeded),
t2 failed (both attempts of its first leaf fail, its second step never
starts), t3 cancelled while its leaf is out (fenced), then a schedule
`hourly` of `slow` declared through the Scheduler locus and ticked: t4
admitted at 01:00, skipped at 02:00 while t4 is out, and at 05:00 the
occurrences of 03:00 and 04:00 missed and 05:00 skipped. `cases(root)`
builds another: cases waiting for a person.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
from support.clock import HandClock  # noqa: F401 (the scenarios take it from here)

from hale_runtime.catalog import WorkflowCatalog
from hale_runtime.catalog.callsite import override
from hale_runtime.engine import Engine
from hale_runtime.memory import open_memory
from hale_runtime.performers import (
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    ModelCall,
    Pending,
    Performers,
    Reconciled,
    hookimpl,
    plugin_manager,
)
from hale_runtime.performers import Unsure as UnsureAnswer
from hale_runtime.record import Record, kinds

HOUR = 3_600_000
DAY0 = 1_764_374_400_000  # 2025-11-29 00:00 UTC


def definitions(c) -> None:
    assert c.define("retry", 1, "record", "tried again") == ""
    assert c.leaf("retry", 1, 0, "w", work("weigh it", "judgment"), 3) == ""
    assert c.define("fail", 1, "record record", "fails") == ""
    assert c.leaf("fail", 1, 0, "f", work("try it", "judgment"), 2) == ""
    assert c.leaf("fail", 1, 1, "never", work("never runs", "judgment"), 1) == ""
    assert c.define("cancel", 1, "record", "cancelled") == ""
    assert c.leaf("cancel", 1, 0, "p", work("wait for it", "judgment"), 1) == ""
    assert c.define("slow", 1, "record", "scheduled, slow") == ""
    assert c.leaf("slow", 1, 0, "s", work("take long", "judgment"), 1) == ""


def work(objective: str, requires: str) -> dict[str, str]:
    return {"objective": objective, "requires": requires}


class Paid:
    """The `agent` performer: answers from a script (attempt id -> "failed" or
    "later"; others succeed), each answer with one model call of 1500 µ$."""

    def __init__(self, script: dict[str, str]):
        self.kind, self.script = "agent", script

    @hookimpl
    def hale_performers(self) -> list:
        return [self]

    def offers(self, capability: str) -> bool:
        return True

    def deliver(self, w, ctx):
        said = self.script.get(w.attempt, SUCCEEDED)
        if said == "later":
            return Pending()
        call = ModelCall(f"{w.attempt}#0", "small", 1500, "ok")
        return Answer(said, f"agent said {said}", calls=[call])

    def reconcile(self, w, ctx):
        return Reconciled(NOT_ACTED)


SCRIPT = {
    "t1/wf1/s0/w/a0": FAILED,
    "t2/wf1/s0/f/a0": FAILED,
    "t2/wf1/s0/f/a1": FAILED,
    "t3/wf1/s0/p/a0": "later",
    "t4/wf1/s0/s/a0": "later",
}


def engine_in(root: Path, script: dict[str, str]) -> tuple[Engine, HandClock]:
    """A new project at `root` and an engine over it, its agent answering `script`."""
    clock = HandClock(DAY0)
    repo = pygit2.init_repository(str(root))
    (root / "dna" / "org").mkdir(parents=True)
    (root / "dna" / "org" / "main.hl").write_text("// the organization\n")
    repo.config["hale.clone"] = "c0ffee00"
    # unsigned, as a record from before signing: the debugger's figures count rows as
    # the engine wrote them (signature rows are never shown, and only leave gaps in seq)
    record = Record.open(root, clock=clock, who="org@box:c0ffee00", sign=False)
    memory = open_memory(root / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    performers = Performers(plugin_manager(Paid(script), entry_points=False))
    return Engine(record, memory, performers, clock=clock), clock


def catalog_of(build) -> object:
    host = WorkflowCatalog()
    with override("dna/org/own_workflows.hl:1:1"):
        build(host)
    return host.seal("dna/org/workflows.hl")


def build(root: Path, schedules: bool = True) -> Path:
    """The project at `root` with the record described above; returns root."""
    e, clock = engine_in(root, SCRIPT)
    catalog = catalog_of(definitions)
    for n, name in enumerate(("retry", "fail", "cancel"), 1):
        clock.advance(60_000)
        e.admit(catalog.bind(name), f"ask-{n}", "leader")
        e.pump()
    clock.advance(60_000)
    assert e.cancel("t3", by="board") == ""
    e.pump()
    if schedules:
        _schedule(root, e, catalog, clock)
    return root


def _schedule(root: Path, e, catalog, clock: HandClock) -> None:
    from hale_runtime.schedules.locus import SchedulerLocus

    locus = SchedulerLocus(root, e.record, None, catalog, e, clock)
    body = {"id": "hourly", "every_ms": HOUR, "cron": "", "definition": "slow",
            "args": "{}", "convener": "position:leader"}  # fmt: skip
    locus.answer("req-1", body, "leader@box")
    for hour in (1, 2, 5):
        clock.now = DAY0 + hour * HOUR + 5_000
        locus.tick()


def nested_definitions(c) -> None:
    assert c.define("low", 1, "record", "the child") == ""
    assert c.leaf("low", 1, 0, "w", work("weigh it", "judgment"), 1) == ""
    assert c.define("top", 1, "record record", "a child beside a leaf") == ""
    assert c.child("top", 1, 0, "mid", "low") == ""
    assert c.leaf("top", 1, 0, "a", work("act", "judgment"), 1) == ""
    assert c.leaf("top", 1, 1, "later", work("afterwards", "judgment"), 1) == ""


def nested(root: Path) -> Path:
    """t1 = top: its child t1.s0.mid out when t1 is cancelled, then fenced."""
    e, clock = engine_in(root, {"t1.s0.mid/wf1/s0/w/a0": "later"})
    e.admit(catalog_of(nested_definitions).bind("top"), "ask-1", "leader")
    e.pump()
    clock.advance(60_000)
    assert e.cancel("t1", by="board") == ""
    e.pump()
    return root


class Unsure:
    """A `service` whose call is sent and never answered: it cannot say."""

    kind = "service"

    @hookimpl
    def hale_performers(self) -> list:
        return [self]

    def offers(self, capability: str) -> bool:
        return capability == "analysis"

    def deliver(self, w, ctx):
        return UnsureAnswer("the call to http://bank.example/feed was sent and never answered")

    def reconcile(self, w, ctx):
        return Reconciled(NOT_ACTED)


def case_definitions(c) -> None:
    assert c.define("close-month", 1, "record record", "close the month") == ""
    assert c.leaf("close-month", 1, 0, "reconcile", work("reconcile the bank feed", "analysis"),
                  2) == ""  # fmt: skip
    assert c.leaf("close-month", 1, 1, "post", work("post the journal entries", "human"), 1) == ""


def cases(root: Path) -> Path:
    """t1 close-month: its reconcile reaches the service, which cannot say
    (effect.unresolved); a person resolves it succeeded, and its post is a
    case on the Board's queue. t2: its reconcile waits for a person."""
    e, clock = engine_in(root, {})
    e.performers = Performers(plugin_manager(Unsure(), entry_points=False))
    catalog = catalog_of(case_definitions)
    for n in (1, 2):
        clock.advance(60_000)
        e.admit(catalog.bind("close-month"), f"ask-{n}", "leader")
        e.pump()
        if n == 1:
            clock.advance(60_000)
            e.inbox.append(("t1/wf1/s0/reconcile/a0", "service",
                            Answer(SUCCEEDED, "the bank feed shows it", resolved_by="ann@desk")))  # fmt: skip
            e.pump()
    return root


SUMS = """// a genome file for `hale dna debug --fn`
fn total(xs: List<Int>) -> Int {
    let sum = 0;
    for x in xs {
        sum = sum + double(x);
    }
    return sum;
}

fn double(x: Int) -> Int {
    return x * 2;
}
"""


def with_sums(root: Path) -> Path:
    """A project with no rows and dna/org/sums.hl (SUMS); returns root."""
    engine_in(root, {})
    (root / "dna" / "org" / "sums.hl").write_text(SUMS)
    return root


def concern_definitions(c) -> None:
    assert c.define("concern-escalate", 1, "record", "a concern raised for a workflow") == ""
    assert c.leaf("concern-escalate", 1, 0, "raise", work("raise the concern", "organism"),
                  1) == ""  # fmt: skip


def readings(root: Path) -> Path:
    """Two firings for one instance a minute apart, each answered by a restart,
    then the concern they raise and concern-escalate admitted for it (t1)."""
    e, clock = engine_in(root, {})
    record = e.record
    web = "web@ann@box:c0ffee00"
    firings = []
    for n in (1, 2):
        clock.advance(60_000)
        firing = record.append(
            kinds.READING_TAKEN, web, {"kind": "unhealthy", "source": "application"}
        )
        firings.append(firing.id)
        clock.advance(1_000)
        did = f"restarted: pid {40 + n} stopped, pid {41 + n} started"
        record.append(kinds.READING_ACTED, web, {"reading": firing.id, "did": did, "pid": 41 + n})
    clock.advance(1_000)
    concern = record.append(kinds.CONCERN_RAISED, web, {"readings": firings, "window_s": 600})
    e.admit(
        catalog_of(concern_definitions).bind("concern-escalate"), f"concern:{concern.id}", "org"
    )
    e.pump()
    return root
