"""Two people on one record. Alice made the project, so her key is its
genesis and holds the Board. Mallory has her own key and claims to be
alice through HALE_DNA_NODE: every act of authority she tries is refused,
naming why, and writes nothing; alice does each."""

from __future__ import annotations

from pathlib import Path

from authority_helpers import Person

from hale_runtime.node.lease import BodyLease
from hale_runtime.record import Record
from hale_runtime.record.kinds import (
    BODY_CLAIMED,
    OUTCOME_REQUESTED,
    POSITION_FILLED,
    REVIEW_DECIDED,
    SCHEDULE_DECLARED,
    SCHEDULE_PAUSED,
    SCHEDULE_REQUESTED,
)

ALICE = "alice@box:c0ffee00"


def kinds_written(project: Path, since: int) -> list[str]:
    return [r.kind for r in Record.open(project).rows(since=since)]


def cursor(project: Path) -> int:
    return Record.open(project).cursor()


def first_review(alice: Person) -> str:
    listed = alice.hale("review").output
    return next(word for word in listed.split() if word.startswith("k:"))


def refused(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "refused: " in result.output, result.output
    for word in words:
        assert word in result.output, result.output


def test_only_the_board_decides_a_review(project: Path, alice: Person, mallory: Person) -> None:
    review = first_review(alice)
    before = cursor(project)
    result = mallory.hale("review", review, "approve", node=ALICE)
    refused(result, f"review {review}: refused: {review} is signed by SHA256:", "alice")
    assert kinds_written(project, before) == []
    result = alice.hale("review", review, "approve")
    assert result.exit_code == 0, result.output
    assert kinds_written(project, before) == [REVIEW_DECIDED]


def test_only_the_board_fills_a_position(project: Path, alice: Person, mallory: Person) -> None:
    before = cursor(project)
    refused(mallory.hale("fill", "board", "mallory", node=ALICE), "position:board")
    refused(mallory.hale("fill", "editor", "mallory"), "not bind to mallory")
    assert kinds_written(project, before) == []
    result = alice.hale("fill", "editor", "bob")
    assert (result.exit_code, result.output) == (
        0,
        "position:editor is held by bob (position.filled)\n",
    )
    assert kinds_written(project, before) == [POSITION_FILLED]


def test_a_self_registered_key_gives_no_authority(
    project: Path, alice: Person, mallory: Person
) -> None:
    result = mallory.hale("key", "register")
    assert result.exit_code == 0, result.output
    assert "is mallory's, registered by itself" in result.output
    refused(mallory.hale("fill", "editor", "mallory"), "not signed by the Board's holder")
    refused(
        mallory.hale("review", first_review(alice), "approve"), "not signed by the Board's holder"
    )
    # claiming alice's name with a key bound to mallory is still not alice
    refused(
        mallory.hale("fill", "editor", "mallory", node=ALICE),
        "names alice but is signed by mallory's key",
    )


def test_only_the_board_or_the_convener_declares_a_schedule(
    project: Path, alice: Person, mallory: Person
) -> None:
    args = ("schedule", "declare", "nightly", "--every", "86400000", "--definition", "ask-edit",
            "--convener", "editor", "--args", '{"objective": "tidy"}')  # fmt: skip
    before = cursor(project)
    result = mallory.hale(*args, node=ALICE)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("schedule declare: refused: sr-"), result.output
    assert kinds_written(project, before) == []
    result = alice.hale(*args)
    assert result.exit_code == 0, result.output
    assert "asked of the organization in the record by alice@" in result.output
    assert kinds_written(project, before) == [SCHEDULE_REQUESTED]


def declared(project: Path, alice: Person) -> None:
    """A schedule as the organization declares it (its rows are the organization's)."""
    terms = {"id": "nightly", "every_ms": 86_400_000, "cron": "", "definition": "ask-edit",
             "args": '{"objective": "tidy"}', "convener": "position:editor"}  # fmt: skip
    Record.open(project, sign=alice.key(), who="alice@box:c0ffee00").append(
        SCHEDULE_DECLARED, "nightly", terms
    )


def test_only_the_board_or_the_convener_pauses(
    project: Path, alice: Person, mallory: Person
) -> None:
    declared(project, alice)
    before = cursor(project)
    refused(mallory.hale("schedule", "pause", "nightly", node=ALICE), "schedule pause nightly")
    assert kinds_written(project, before) == []
    assert "[live]" in alice.hale("schedule").output
    result = alice.hale("schedule", "pause", "nightly")
    assert result.exit_code == 0, result.output
    assert kinds_written(project, before) == [SCHEDULE_PAUSED]
    assert "[paused]" in alice.hale("schedule").output


def test_only_the_owner_forces_the_body(project: Path, alice: Person, mallory: Person) -> None:
    BodyLease(project, "node@elsewhere:c1", None, 30.0, 10.0).take()
    before = cursor(project)
    refused(mallory.hale("body", "claim", "--force", node=ALICE), "body claim --force: refused")
    assert "node@elsewhere:c1" in alice.hale("body").output  # the lease did not move
    assert kinds_written(project, before) == []
    result = alice.hale("body", "claim", "--force")
    assert result.exit_code == 0, result.output
    assert "alice@" in alice.hale("body").output
    assert kinds_written(project, before) == [BODY_CLAIMED]


def test_the_board_filled_passes_authority_on(project: Path, alice: Person) -> None:
    bob = Person("bob", project.parent / "home-bob")
    refused(alice.hale("fill", "board", "bob"), "bob has no key the Board registered")
    result = alice.hale("key", "register", "bob", bob.key().openssh())
    assert result.exit_code == 0, result.output
    assert "is bob's, endorsed (key.registered)" in result.output
    assert alice.hale("fill", "board", "bob").exit_code == 0
    refused(alice.hale("fill", "editor", "alice"), "not signed by the Board's holder")
    result = bob.hale("fill", "editor", "alice")
    assert result.exit_code == 0, result.output
    assert "holds: position:board" in bob.hale("whoami").output


def test_whoami_says_who_writes_and_what_the_record_binds(
    project: Path, alice: Person, mallory: Person, tmp_path: Path, monkeypatch
) -> None:
    said = alice.hale("whoami")
    key = alice.key()
    assert said.exit_code == 0, said.output
    lines = said.output.splitlines()
    assert lines[0].startswith("identity: alice (rows name alice@")
    assert lines[1] == f"key: {key.fingerprint} (ed25519, ~/.config/hale/signing_key)"
    assert lines[2] == (
        "record: your key is the record's genesis, and holds the Board until the Board is filled"
    )
    assert mallory.hale("whoami").output.splitlines()[2] == (
        "record: your key is not registered (`hale dna key register`)"
    )
    monkeypatch.chdir(tmp_path)  # outside any project: who, and the key
    assert len(alice.hale("whoami").output.splitlines()) == 2


def test_the_graph_shows_each_holder_with_its_keys(
    project: Path, alice: Person, tmp_path: Path
) -> None:
    from hale_runtime.memory import open_memory
    from hale_runtime.memory.projection import project as project_rows

    bob = Person("bob", project.parent / "home-bob")
    assert alice.hale("key", "register", "bob", bob.key().openssh()).exit_code == 0
    assert alice.hale("fill", "board", "bob").exit_code == 0
    revoked = alice.key().fingerprint
    assert bob.hale("key", "revoke", revoked).exit_code == 0  # the Board's now: bob
    with open_memory(tmp_path / "memory.sqlite3") as memory:
        memory.migrate()
        project_rows(Record.open(project), memory)
        assert memory.holder_of("board") == "bob"
        edges = {(e.src, e.dst, e.props["bound"]) for e in memory.edges("key") if e.src != "org"}
        assert edges == {("bob", f"key:{bob.key().fingerprint}", "endorsed")}
        genesis = memory.node(f"key:{revoked}")
        assert genesis is not None and genesis.props["revoked"] is True


def test_a_revoked_key_proves_nothing_after_its_revocation(
    project: Path, alice: Person, tmp_path: Path
) -> None:
    bob = Person("bob", tmp_path / "home-bob")
    assert alice.hale("key", "register", "bob", bob.key().openssh()).exit_code == 0
    assert alice.hale("fill", "editor", "bob").exit_code == 0  # bob convenes the schedule
    declared(project, alice)
    paused = bob.hale("schedule", "pause", "nightly")
    assert paused.exit_code == 0, paused.output
    revoked = alice.hale("key", "revoke", bob.key().fingerprint, "--why", "lost laptop")
    assert revoked.output == f"key:{bob.key().fingerprint} of bob is revoked (key.revoked)\n"
    before = cursor(project)
    refused(bob.hale("schedule", "resume", "nightly"), "which is revoked")
    assert kinds_written(project, before) == []
    assert "[paused]" in alice.hale("schedule").output  # what bob did before still stands
    assert bob.hale("whoami").output.splitlines()[2] == "record: your key was bob's, and is revoked"
    refused(bob.hale("key", "register"), "is revoked; only the Board")  # no way back by itself
    carol = Person("bob", tmp_path / "home-carol")  # another key claiming the name
    assert "binds no name until endorsed" in carol.hale("key", "register").output
    refused(carol.hale("schedule", "resume", "nightly"), "schedule resume nightly")


def test_only_a_registered_person_resolves_an_effect(
    project: Path, alice: Person, mallory: Person
) -> None:
    """The verb judges with Record.judge before it writes (its case needs a
    running organization; the judgment is the record's)."""
    asked = {"outcome": "failed", "note": "", "resolved_by": "mallory"}
    as_mallory = Record.open(project, who="mallory@box:c0ffee00", sign=mallory.key())
    assert as_mallory.judge(OUTCOME_REQUESTED, "a1", asked) == (
        f"refused: a1 is signed by {mallory.key().fingerprint}, "
        "which the record does not bind to mallory"
    )
    assert mallory.hale("key", "register").exit_code == 0  # by itself: proves no name
    assert "no Board endorsement binds" in as_mallory.judge(OUTCOME_REQUESTED, "a1", asked)
    endorsed = alice.hale("key", "register", "mallory", mallory.key().openssh())
    assert endorsed.exit_code == 0, endorsed.output
    assert as_mallory.judge(OUTCOME_REQUESTED, "a1", asked) == ""
    for_alice = {**asked, "resolved_by": "alice"}
    assert as_mallory.judge(OUTCOME_REQUESTED, "a1", for_alice) == (
        "refused: a1 is resolved by alice but written by mallory@box:c0ffee00"
    )
