"""Issue 29, item 5: no name is taken by saying it. A key that registers
itself as `bob` binds no name: the real bob registers his own all the same,
and the Board endorses his. Your rows are the ones your key signed, not the
ones your name wrote: the squatter's redaction of bob's row is refused, and
bob's own stands."""

from __future__ import annotations

from pathlib import Path

from authority_helpers import Person
from trust_helpers import forge

from hale_runtime.record import Record, protected
from hale_runtime.record.kinds import READING_TAKEN, ROW_REDACTED

BOB = "bob@box:b0b0b0b0"


def test_a_squatter_takes_no_name(project: Path, alice: Person, tmp_path: Path) -> None:
    squatter = Person("bob", tmp_path / "home-squatter")
    bob = Person("bob", tmp_path / "home-bob")
    said = squatter.hale("key", "register")
    assert said.exit_code == 0, said.output
    assert "binds no name until endorsed" in said.output

    mine = bob.hale("key", "register")
    assert mine.exit_code == 0, mine.output
    endorsed = alice.hale("key", "register", "bob", bob.key().openssh())
    assert endorsed.exit_code == 0, endorsed.output
    trust = Record.open(project).trust
    assert trust.keys[bob.key().fingerprint].endorsed
    assert not trust.keys[squatter.key().fingerprint].endorsed
    assert "binds no name" in squatter.hale("whoami").output


def test_the_squatters_redaction_of_bobs_row_is_refused(
    project: Path, alice: Person, tmp_path: Path
) -> None:
    squatter = Person("bob", tmp_path / "home-squatter")
    bob = Person("bob", tmp_path / "home-bob")
    assert squatter.hale("key", "register").exit_code == 0
    assert alice.hale("key", "register", "bob", bob.key().openssh()).exit_code == 0
    as_bob = Record.open(project, who=BOB, sign=bob.key())
    digest = protected.put(as_bob.repo, {"detail": "bob's card"}, durable=False)
    row = as_bob.append(READING_TAKEN, "billing", {"kind": "down", "protected": digest})

    record = Record.open(project).trust.record
    (forged,) = forge(project, [(ROW_REDACTED, row.id, {"protected": digest})],
                      squatter.key(), who=BOB, record=record)  # fmt: skip
    fresh = Record.open(project)
    (found,) = [r for r in fresh.rows(kind=ROW_REDACTED, poison=True) if r.id == forged]
    assert "signed by neither its row's writer's key" in fresh.poison_of(found)
    assert protected.redacted_digests(fresh) == set()

    Record.open(project, who=BOB, sign=bob.key()).append(
        ROW_REDACTED, row.id, {"protected": digest}
    )
    assert protected.redacted_digests(Record.open(project)) == {digest}
