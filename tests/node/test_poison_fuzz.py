"""Row fuzz: hostile rows of every kind fed to a running organization (in-process).

A real project and a real organization (its engine, intake, settler and
Scheduler, SQLite memory and nerves) hold a record of good work. Each
example appends a few rows a hostile clone could write, past every door:
examples of each kind in the table with a field of another type, a field
missing, a key of two lines or too long, another kind, a random body, a
line that is no row at all, or the example as it is (which may fit, or be
inconsistent with what came before it). The organization runs a few rounds
(relay, hear, tick). It never raises; each row that does not fit its kind is
quarantined, once; no good row is; and the quarantined rows change nothing:
the engine's fold and the Scheduler's fold of the record are the same with
them as without them.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hostile import append_lines, line, row_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_runtime.cli import hale
from hale_runtime.engine import Budget, BudgetPolicy, State
from hale_runtime.engine.ids import root_of
from hale_runtime.memory import open_memory
from hale_runtime.nerves import Subscription
from hale_runtime.node.organization import Organization
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record, Row
from hale_runtime.record import kinds as k
from hale_runtime.schedules.state import Fold
from hale_runtime.schedules.terms import Terms

KINDS = sorted(k.KINDS)
KEYS = ["t1", "t1/wf1/s0", "t1/wf1/s0/e", "t1/wf1/s0/e/a0", "t2/wf1/s0/j/a0", "t9",
        "i-000000000001", "sr-000000000001", "nightly", "position:leader", "k"]  # fmt: skip
WRONG: list[Any] = ["lots", -1, 2**70, True, None, [], {}, 1.5, "a\nb", [{"micros": "x"}],
                    {"deep": [[["x"]]]}, "\u2028", "x" * 600]  # fmt: skip
# how a row is made hostile; "as is" (the example, on a real id) thrice as often, since
# what fits its kind but not what came before it reaches the folds and handlers
HOW = ["field", "drop", "key", "kind", "body", "garbage", "envelope", "as is", "as is", "as is"]
GARBAGE = ["not json", "{}", '{"kind": 1}', "[1, 2]", line("a.b", "k", {"n": 1})[:-9] + "}"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)  # fmt: skip


class Running:
    """The organization, the relay and the nerves it hears, over one project."""

    def __init__(self, root: Path):
        self.root = root
        self.org = Organization(root, root, "org@box:c0ffee00")
        self.org.load()
        self.relay = Relay()
        self.heard: Subscription = self.org.nerves.subscribe("")
        self.hostile: set[str] = set()  # the ids of every row written past the doors
        self.hostile_answers: set[str] = set()  # the keys of hostile `row.quarantined` rows

    def rounds(self, n: int = 3) -> None:
        for _ in range(n):
            self.relay.relay(self.org.record, self.org.nerves)
            self.org.round(self.heard.poll(0.02))


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    root = tmp_path_factory.mktemp("fuzz") / "p"
    made = CliRunner().invoke(hale, ["dna", "new", str(root)])
    assert made.exit_code == 0, made.output
    memory = root / ".git" / "hale" / "memory.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HALE_DNA_MEMORY", str(memory))
        open_memory(memory).migrate()
        asker = Record.open(root, who="org@desk:c0ffee00")  # the tests' one person: genesis
        asker.append(k.INTENT_REQUESTED, "i-000000000001", {"objective": "tidy the readme"})
        asker.append(k.INTENT_REQUESTED, "i-000000000002", {"objective": "judge", "judgment": True})
        terms = Terms("nightly", 0, "0 2 * * *", "optimize-walk", "{}", "position:leader")
        asker.append(k.SCHEDULE_REQUESTED, "sr-000000000001", {**terms.as_body(), "by": asker.who})
        run = Running(root)
        run.rounds(8)
        assert not Record.open(root).rows(kind=k.ROW_QUARANTINED)
        yield run
        run.org.memory.close()
    shutil.rmtree(root, ignore_errors=True)


@st.composite
def hostile_line(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(KINDS))
    body = k.example(kind)
    key = draw(st.sampled_from(KEYS))
    how = draw(st.sampled_from(HOW))
    if how == "field" and body:
        body[draw(st.sampled_from(sorted(body)))] = draw(st.sampled_from(WRONG))
    elif how == "drop" and k.KINDS[kind].required:
        del body[draw(st.sampled_from(sorted(k.KINDS[kind].required)))]
    elif how == "key":
        key = draw(st.sampled_from(["a\nb", "x" * 600, "k\u2028", "\x07", "tab\there"]))
    elif how == "kind":
        kind = draw(st.sampled_from(["a b", "", "x" * 200, k.ROW_UNREADABLE, *KINDS]))
    elif how == "body":
        body = draw(st.dictionaries(st.text(max_size=6), json_values, max_size=4))
    elif how == "garbage":
        return draw(st.sampled_from(GARBAGE))
    elif how == "envelope":
        envelope = draw(st.sampled_from([{"at": -5}, {"at": "now"}, {"who": "a\nb"}, {"clone": 7}]))
        return line(kind, key, body, **envelope)
    return line(kind, key, body)


def quarantined(record: Record, by: str) -> Counter[str]:
    """The rows the organization (`by`) quarantined: a hostile clone writes its own too."""
    return Counter(r.key for r in record.rows(kind=k.ROW_QUARANTINED) if r.who == by)


def folded(rows: list[Row], stuck: set[str]) -> tuple[Any, ...]:
    """What the engine's fold and the Scheduler's fold make of `rows`, but for the
    trees of the `stuck` roots."""
    state = State(Budget(BudgetPolicy()))
    for row in rows:
        state.fold(row)
    tasks = sorted(
        (
            t.id,
            t.plan.name,
            t.outcome,
            t.halt,
            t.summary,
            [(s.id, s.out, s.failed) for s in t.steps],
        )
        for t in state.tasks.values()
        if root_of(t.id) not in stuck
    )
    attempts = sorted(
        (a.id, a.performer, a.claimed, a.outcome, a.unresolved, len(a.facts))
        for a in state.attempts.values()
        if root_of(a.id) not in stuck
    )
    schedules = Fold().apply_all(rows).schedules
    return tasks, attempts, sorted((s, astuple(v)) for s, v in schedules.items())


def feed(running: Running, lines: list[str]) -> None:
    """Append `lines` past the doors, run the organization, and check what it did."""
    append_lines(running.root, lines)
    running.hostile |= {row_id(text) for text in lines}
    for text in lines:
        row = Record.open(running.root).get(row_id(text))
        if row is not None and row.kind == k.ROW_QUARANTINED:
            running.hostile_answers.add(row.key)  # it answers for that row: ours is not needed
    running.rounds()  # raises nothing: the test fails on whatever it would raise

    record = Record.open(running.root)
    answered = quarantined(record, running.org.record.who)
    assert all(n == 1 for n in answered.values()), answered  # once
    assert set(answered) <= running.hostile  # never a good row
    for text in lines:
        row = record.get(row_id(text))
        assert row is not None
        if record.poison_of(row) and row.id not in running.hostile_answers:
            assert answered[row.id] == 1, (text, record.poison_of(row))
    every = record.rows()
    kept = [r for r in every if r.id not in answered]
    # a quarantined admission (a stuck task's, or a hostile one under a task's key)
    # takes its root's tree out of the comparison, on both sides alike
    stuck = {root_of(r.key) for r in every if r.id in answered and r.kind == k.WORKFLOW_ADMITTED}
    assert folded(every, stuck) == folded(kept, stuck)


def test_every_kind_as_it_is_with_a_field_of_another_type_and_with_a_bad_key(running) -> None:
    lines = []
    for kind in KINDS:
        body = k.example(kind)
        lines += [line(kind, "t1/wf1/s0/e/a0", body), line(kind, "a\nb", body)]
        if body:
            name = sorted(body)[0]
            lines.append(line(kind, "t1", {**body, name: [{"micros": "lots"}]}))
    feed(running, lines)


@settings(max_examples=int(os.environ.get("HALE_FUZZ_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(st.lists(hostile_line(), min_size=1, max_size=3))
def test_hostile_rows_are_quarantined_once_and_change_nothing(running: Running, lines) -> None:
    feed(running, lines)


def test_an_admission_under_a_good_tasks_attempt_key_stalls_nothing(running) -> None:
    """A row admitting a workflow under another task's attempt id (hypothesis found
    one) does not fit its kind: it is never applied, and the engine neither makes
    a task of it nor gets stuck on one (it did, before the key had a form)."""
    body = {**k.example(k.WORKFLOW_ADMITTED), "definition": "ask-judge@1"}
    feed(running, [line(k.WORKFLOW_ADMITTED, "t2/wf1/s0/j/a0", body)])
    assert running.org.engine.stuck == set()
