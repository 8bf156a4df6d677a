"""Two people, two clones, one bare remote: what a sync carries.

Alice made the project in her clone (her key is genesis, the Board); bob
and mallory work in a clone of their own. Signatures are rows, so the
rebase a sync makes (rows written again on top of another clone's) keeps
them valid; and a forgery pushed from one clone is refused in every
clone that reads it, as a row."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pygit2
import pytest
from authority_helpers import Person
from hostile import append_lines, line, row_id

from hale_runtime.record import Record
from hale_runtime.record.identity import CLONE_KEY
from hale_runtime.record.kinds import OUTCOME_REQUESTED, POSITION_FILLED, REVIEW_DECIDED, ROW_SIGNED
from hale_runtime.record.signing import key_of, signature_body


def git(*args: str, at: Path) -> None:
    subprocess.run(["git", *args], cwd=at, check=True, capture_output=True)


@pytest.fixture
def clones(tmp_path: Path, alice: Person) -> tuple[Path, Path]:
    """(alice's clone, the other clone), both of one bare remote holding the record."""
    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True, initial_head="main")
    a = tmp_path / "a"
    repo = pygit2.init_repository(str(a), initial_head="main")
    repo.config[CLONE_KEY] = "a0a0a0a0"
    repo.remotes.create("origin", str(remote))
    assert alice.hale("new", str(a)).exit_code == 0
    git("push", "-q", "origin", "main", at=a)
    assert alice.hale("key", "list", at=a).exit_code == 0  # a verb that syncs: the record travels
    git("clone", "-q", str(remote), "b", at=tmp_path)
    b = tmp_path / "b"
    pygit2.Repository(str(b)).config[CLONE_KEY] = "b0b0b0b0"
    return a, b


def verified(person: Person, at: Path) -> list[dict]:
    result = person.hale("history", "--verify", "--json", at=at)
    assert result.exit_code == 0, result.output
    return [json.loads(one) for one in result.output.splitlines()]


def test_signatures_survive_the_rebase_a_sync_makes(
    clones: tuple[Path, Path], alice: Person, tmp_path: Path
) -> None:
    a, b = clones
    bob = Person("bob", tmp_path / "home-bob")
    assert alice.hale("key", "register", "bob", bob.key().openssh(), at=a).exit_code == 0
    said = bob.hale("whoami", at=b).output  # syncs first: the record as the remote has it
    assert "record: your key is bob's, registered by the Board" in said, said
    # each writes without syncing: alice's fill and bob's answer diverge
    mine = Record.open(a, who="alice@box:a0a0a0a0", sign=alice.key())
    filled = mine.append(
        POSITION_FILLED, "position:editor", {"position": "editor", "holder": "bob"}
    )
    theirs = Record.open(b, who="bob@box:b0b0b0b0", sign=bob.key())
    resolved = {"outcome": "failed", "note": "the bank was closed", "resolved_by": "bob"}
    answered = theirs.append(OUTCOME_REQUESTED, "a1", resolved)
    theirs.sync()
    mine.sync()  # alice's rows are written again on top of bob's
    theirs.sync()
    for clone, person in ((a, alice), (b, bob)):
        record = Record.open(clone)
        order = [r.id for r in record.rows()]
        assert order.index(answered.id) < order.index(filled.id)  # rebased after bob's
        assert [r.body["holder"] for r in record.rows(kind=POSITION_FILLED)][-1] == "bob"
        assert [r.id for r in record.rows(kind=OUTCOME_REQUESTED)] == [answered.id]
        rows = verified(person, clone)
        assert rows and all(r["verifies"] and not r["refused"] for r in rows), rows
        signers = {r["id"]: r["identity"] for r in rows}
        assert (signers[filled.id], signers[answered.id]) == ("alice", "bob")


def test_a_forgery_pushed_from_another_clone_is_refused_in_every_clone(
    clones: tuple[Path, Path], alice: Person, mallory: Person
) -> None:
    a, b = clones
    assert mallory.hale("key", "register", at=b).exit_code == 0  # her own: proves her, no more
    review = next(w for w in alice.hale("review", at=a).output.split() if w.startswith("k:"))
    forged = line(REVIEW_DECIDED, review, {"decision": "approved", "by": "alice", "practice": "x"},
                  who="alice@box:a0a0a0a0", clone="b0b0b0b0")  # fmt: skip
    record = Record.open(b)
    signed = signature_body(mallory.key(), record.trust.record, [row_id(forged)])
    append_lines(b, [line(ROW_SIGNED, key_of(mallory.key().fingerprint), signed), forged])
    assert record.sync().sent >= 2  # past the door, as a hale of her own would push it
    listed = alice.hale("review", at=a).output  # alice's clone syncs, and judges it
    assert review in listed, listed
    mine = Record.open(a)
    row = mine.get(row_id(forged))
    assert row is not None and mine.rows(kind=REVIEW_DECIDED) == []
    fingerprint = mallory.key().fingerprint
    why = f"refused: {review} names alice but is signed by mallory's key {fingerprint}"
    assert mine.poison_of(row) == why
    assert Record.open(b).poison_of(row) == why  # her own clone judges it alike
    shown = [r for r in verified(alice, a) if r["id"] == row.id]
    assert (shown[0]["identity"], shown[0]["bound"], shown[0]["refused"]) == (
        "mallory",
        False,
        why.removeprefix("refused: "),
    )
    approved = alice.hale("review", review, "approve", at=a)
    assert approved.exit_code == 0, approved.output
    decided = Record.open(a).rows(kind=REVIEW_DECIDED)
    assert [r.body["by"].partition("@")[0] for r in decided] == ["alice"]
