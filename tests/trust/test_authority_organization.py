"""Issue 29, shown on a running organization: a stranger's row of every kind a
bound writer must write (schedules, practices, spend, outcomes, restarts, node
states, quarantines, redactions, ledger and lease rows), unsigned or signed by
her own key under any name, is quarantined by the organization with the
reason it was refused, once, and changes nothing it does: it keeps running,
writes nothing for those rows but its verdicts, and admits the next ask
(the forged spend exhausts no budget). A hypothesis test varies the kind,
key, claimed name, signature and a field."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from authority_helpers import Person
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from no_genome_helpers import Running, ask
from trust_helpers import forge

from hale_runtime.memory import open_memory
from hale_runtime.record import Record, kinds
from hale_runtime.record.practices import ratified_practices

ACTING = sorted(k for k, w in kinds.WRITERS.items() if w != kinds.ANYONE)


def every_acting_kind(tag: str) -> list[tuple[str, str, dict]]:
    rows = []
    for n, kind in enumerate(ACTING):
        key = "t9" if kinds.KINDS[kind].key is kinds.TASK else f"forged/{tag}{n}"
        body = kinds.example(kind)
        if kind == kinds.MODEL_CALLED:
            body = {**body, "micros": 25_000_000}  # a day's budget, were it applied
        rows.append((kind, key, body))
    return rows


@pytest.fixture
def organization(
    project: Path, mallory: Person, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Running]:
    """The project's organization, running in-process; mallory has registered her key."""
    memory = project / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory))
    open_memory(memory).migrate()
    assert mallory.hale("key", "register").exit_code == 0
    run = Running(project)
    run.rounds(2)
    yield run
    run.org.memory.close()


# her own name and the ones she claims: the organization's, the Board holder's
@pytest.mark.parametrize(
    ("name", "signed"), [("mallory", True), ("mallory", False), ("org", True), ("alice", True)]
)
def test_a_running_organization_quarantines_a_strangers_rows_and_goes_on(
    project: Path, mallory: Person, monkeypatch: pytest.MonkeyPatch, signed: bool, name: str
) -> None:
    memory = project / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory))
    open_memory(memory).migrate()
    run = Running(project)
    run.rounds(2)
    before = Record.open(project).cursor()
    practices = ratified_practices(Record.open(project))  # what the Leader's brief holds
    if signed:
        assert mallory.hale("key", "register").exit_code == 0
    record = Record.open(project).trust.record
    ids = set(forge(project, every_acting_kind(name), mallory.key() if signed else None,
                    who=f"{name}@elsewhere:0badc0de", record=record))  # fmt: skip
    run.rounds(3)  # never raises
    verdicts = lambda: [  # noqa: E731
        r for r in Record.open(project).rows(kind=kinds.ROW_QUARANTINED) if r.key in ids
    ]
    run.until(lambda: len(verdicts()) >= len(ids))
    assert Counter(r.key for r in verdicts()) == Counter(ids)  # each once, by the organization
    assert {r.who for r in verdicts()} == {run.org.record.who}
    assert all(r.body["why"].startswith("refused: ") for r in verdicts()), verdicts()

    intent = ask(project, "i-000000000001", {"objective": "judge the readme", "judgment": True})
    run.until(lambda: Record.open(project).rows(kind=kinds.INTENT_OFFERED, key=intent))
    assert not Record.open(project).rows(kind=kinds.INTENT_REFUSED)
    assert ratified_practices(Record.open(project)) == practices
    ours = [r for r in Record.open(project).scan(before) if r.who == run.org.record.who]
    forged = {key for _, key, _ in every_acting_kind(name)} - {"t9"}
    assert not [r for r in ours if r.kind != kinds.ROW_QUARANTINED and r.key in forged]
    run.org.memory.close()


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    kind=st.sampled_from(ACTING),
    key=st.sampled_from(["t1", "t9", "position:board", "grant/leader", "key:x", "evil"]),
    name=st.sampled_from(["mallory", "alice", "org", "board"]),
    signed=st.booleans(),
    field=st.none() | st.sampled_from([2**70, "a\nb", [], {"micros": 25_000_000}, -1, "\u202e"]),
)
def test_a_strangers_random_rows_change_nothing_a_running_organization_does(
    organization: Running, mallory: Person,
    kind: str, key: str, name: str, signed: bool, field: object,
) -> None:  # fmt: skip
    """Hypothesis over the kind, key, claimed name, signature and one field: the
    organization keeps running and writes nothing but its verdict on the row."""
    run, project = organization, organization.root
    before = Record.open(project).cursor()
    body = kinds.example(kind)
    if field is not None and body:
        body[sorted(body)[0]] = field
    record = Record.open(project).trust.record
    (forged,) = forge(project, [(kind, key, body)], mallory.key() if signed else None,
                      who=f"{name}@elsewhere:0badc0de", record=record)  # fmt: skip
    run.rounds(2)  # never raises
    written = [r for r in Record.open(project).scan(before) if r.who == run.org.record.who]
    assert [(r.kind, r.key) for r in written] == [(kinds.ROW_QUARANTINED, forged)]
