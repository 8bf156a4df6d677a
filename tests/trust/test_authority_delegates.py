"""Issue 29: no name is taken by saying it. A key binds to a name only when
the Board, or a holder the Board delegated endorsing to, endorses it. The
delegate's endorsement binds as the Board's; a stranger's binds nothing;
after the Board revokes the delegation, the delegate's later endorsements
bind nothing, and its earlier ones stand. The rows travel through a real
git record: written by the verbs, or pushed raw past the door (`forge`)."""

from __future__ import annotations

import json
from pathlib import Path

from authority_helpers import Person
from trust_helpers import forge

from hale_runtime.record import Record, keys
from hale_runtime.record.kinds import KEY_REGISTERED
from hale_runtime.record.signing import key_of

BOB = "bob@box:b0b0b0b0"


def _endorsement(name: str, key: keys.SigningKey) -> tuple[str, str, dict[str, str]]:
    body = {"identity": name, "public": keys.encode_public(key.public), "bound": "endorsed"}
    return KEY_REGISTERED, key_of(key.fingerprint), body


def _people(tmp_path: Path, alice: Person) -> tuple[Person, Person, Person]:
    """bob (a key the Board endorsed), carol and dave (keys nobody endorsed yet)."""
    bob, carol, dave = (Person(n, tmp_path / f"home-{n}") for n in ("bob", "carol", "dave"))
    assert alice.hale("key", "register", "bob", bob.key().openssh()).exit_code == 0
    return bob, carol, dave


def test_the_delegates_endorsement_binds_a_name(
    project: Path, alice: Person, tmp_path: Path
) -> None:
    bob, carol, _ = _people(tmp_path, alice)
    delegated = alice.hale("key", "delegate", "position:editor")
    assert delegated.exit_code == 0, delegated.output
    assert delegated.output == (
        "endorse/position:editor: position:editor endorses keys in the Board's stead "
        "(endorse.delegated)\n"
    )
    assert alice.hale("fill", "editor", "bob").exit_code == 0

    assert "as the Board delegated to position:editor" in bob.hale("whoami").output
    endorsed = bob.hale("key", "register", "carol", carol.key().openssh())
    assert endorsed.exit_code == 0, endorsed.output
    assert Record.open(project).trust.keys[carol.key().fingerprint].endorsed
    assert "registered by the Board" in carol.hale("whoami").output
    assert "delegates: position:editor endorse keys" in alice.hale("key", "list").output
    listed = json.loads(alice.hale("key", "list", "--json").output)
    assert listed["delegates"] == ["position:editor"]

    # what the delegate may not do: the Board's own name, delegating on, others' keys
    usurp = Person("alice", tmp_path / "home-usurper")
    board = bob.hale("key", "register", "alice", usurp.key().openssh())
    assert board.exit_code == 1 and "the Board's own name" in board.output, board.output
    onward = bob.hale("key", "delegate", "carol")
    assert onward.exit_code == 1, onward.output
    assert "not signed by the Board's holder" in onward.output
    taken = bob.hale("key", "revoke", carol.key().fingerprint)
    assert taken.exit_code == 1 and "only the Board's holder or carol" in taken.output
    trust = Record.open(project).trust
    assert usurp.key().fingerprint not in trust.keys
    assert trust.delegates.given == {"position:editor"}
    assert not trust.keys[carol.key().fingerprint].revoked


def test_a_strangers_endorsement_binds_nothing(
    project: Path, alice: Person, mallory: Person, tmp_path: Path
) -> None:
    """The Board delegated to bob: a stranger's key, bob's name on a stranger's
    key, and dave's endorsed key (not delegated) endorse nothing."""
    bob, carol, dave = _people(tmp_path, alice)
    assert alice.hale("key", "register", "dave", dave.key().openssh()).exit_code == 0
    assert alice.hale("key", "delegate", "bob").exit_code == 0
    assert mallory.hale("key", "register").exit_code == 0
    at_door = dave.hale("key", "register", "carol", carol.key().openssh())
    assert at_door.exit_code == 1, at_door.output
    assert "nor a delegate of the Board" in at_door.output

    record = Record.open(project).trust.record
    carols = [_endorsement("carol", carol.key())]
    forged = [
        *forge(project, carols, mallory.key(), who="mallory@elsewhere:0badc0de", record=record),
        *forge(project, carols, mallory.key(), who=BOB, record=record),  # bob's name, her key
        *forge(project, carols, dave.key(), who="dave@box:d0d0d0d0", record=record),
    ]
    fresh = Record.open(project)
    verdicts = [fresh.poison_of(_row(fresh, row_id)) for row_id in forged]
    assert all("nor a delegate of the Board" in why for why in verdicts), verdicts
    assert carol.key().fingerprint not in fresh.trust.keys


def test_a_revoked_delegation_binds_nothing_later(
    project: Path, alice: Person, tmp_path: Path
) -> None:
    bob, carol, dave = _people(tmp_path, alice)
    assert alice.hale("key", "delegate", "bob").exit_code == 0
    assert bob.hale("key", "register", "carol", carol.key().openssh()).exit_code == 0
    ended = alice.hale("key", "delegate", "--revoke", "bob")
    assert ended.exit_code == 0, ended.output
    assert "bob endorses no keys from now on (endorse.revoked)" in ended.output

    at_door = bob.hale("key", "register", "dave", dave.key().openssh())
    assert at_door.exit_code == 1, at_door.output
    record = Record.open(project).trust.record
    (late,) = forge(project, [_endorsement("dave", dave.key())], bob.key(),
                    who=BOB, record=record)  # fmt: skip
    fresh = Record.open(project)
    assert "nor a delegate of the Board" in fresh.poison_of(_row(fresh, late))
    trust = fresh.trust
    assert dave.key().fingerprint not in trust.keys
    assert trust.keys[carol.key().fingerprint].endorsed  # the earlier one stands
    again = alice.hale("key", "delegate", "--revoke", "bob")
    assert again.exit_code == 1 and "no delegation the Board gave" in again.output


def _row(record: Record, row_id: str):
    (found,) = [r for r in record.rows(kind=KEY_REGISTERED, poison=True) if r.id == row_id]
    return found
