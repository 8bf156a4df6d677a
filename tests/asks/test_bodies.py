"""Two bodies of one record at a remote: an intent is answered once, decided
from the record, and the Leader is asked at most once, whatever claim
expired or was released since. Each body folds its own clone; the remote is
a real bare repository and the memory one database."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ask_helpers import Project, Scripted, age_claim, make_project, relayed

from hale_runtime.record import Record

ASKER = "ann@box:c1"


@pytest.fixture
def bodies(tmp_path: Path) -> tuple[Project, Project]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    pair = []
    for name, clone in (("a", "aaaaaaaa"), ("b", "bbbbbbbb")):
        root = make_project(tmp_path / name, clone)
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(remote)], check=True)
        pair.append(Project(root))
    pair[1].memory_path.parent.mkdir(parents=True, exist_ok=True)
    pair[1].memory_path.symlink_to(pair[0].memory_path)  # one memory for both bodies
    return pair[0], pair[1]


def body(project: Project, holder: str, provider: Scripted):
    node = project.node(holder, provider=provider)
    node.intake.sync = node.record.sync
    return node


def leader_asked(provider: Scripted) -> int:
    return sum(p.startswith("You are the Leader") for p in provider.prompts)


def ask(project: Project, objective: str):
    record = Record.open(project.root, who=ASKER)
    row = record.append("intent.requested", "i-1", {"objective": objective, "target": ".",
                                                    "by": ASKER})  # fmt: skip
    record.sync()
    return row


def test_an_offer_at_the_remote_settles_the_intent_after_its_claim_was_released(bodies):
    a_side, b_side = bodies
    row = ask(a_side, "add a health check")
    a_word, b_word = Scripted('{"kind": "product"}'), Scripted('{"kind": "product"}')
    a = body(a_side, "a@box:aaaaaaaa", a_word)
    b = body(b_side, "b@box:bbbbbbbb", b_word)  # its clone has not heard of a's answer
    assert a.intake.on_intent_requested(relayed(row)) == "offered: t1"
    assert a.memory.claim("plan/i-1") is None  # given back once the answer was pushed
    assert b.intake.on_intent_requested(relayed(row)) == "answered before"
    assert leader_asked(b_word) == 0 and leader_asked(a_word) == 1
    b.record.sync()
    assert [r.key for r in b.record.rows(kind="intent.offered")] == ["i-1"]
    assert [r.key for r in b.record.rows(kind="workflow.admitted")] == ["t1"]


def test_a_word_pushed_before_its_holder_died_is_bound_not_asked_again(bodies):
    a_side, b_side = bodies
    row = ask(a_side, "add a health check")
    a = body(a_side, "a@box:aaaaaaaa", Scripted('{"kind": "product"}'))
    a.intake._admit = lambda ask, decision: "died before admitting"  # killed after the word
    assert a.intake.on_intent_requested(relayed(row)) == "died before admitting"
    age_claim(a_side.memory_path, "plan/i-1", 300_000)  # its claim runs out
    b_word = Scripted('{"kind": "person"}')
    b = body(b_side, "b@box:bbbbbbbb", b_word)
    assert b.intake.on_intent_requested(relayed(row)) == "offered: t1"
    assert leader_asked(b_word) == 0  # a's word, pushed at once, is the one bound
    offered = b.record.rows(kind="intent.offered")[0].body
    assert offered["kind"] == "product"
