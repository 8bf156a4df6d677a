"""Issue 29, item 4: the root of trust is fixed at birth. On a record from
before signing, running `hale dna upgrade` adopts nobody; the operator names
the key (`--genesis-key`, theirs) and is warned in one line. The Board then
rotates its own key and revokes a stranger's, as signed rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person
from older import old_project

from hale_runtime.record import Record
from hale_runtime.record.kinds import KEY_REGISTERED, KEY_REVOKED


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = old_project(tmp_path / "old")
    monkeypatch.chdir(path)
    return path


def test_upgrade_adopts_only_the_key_its_operator_names(
    old: Path, alice: Person, mallory: Person
) -> None:
    first = mallory.hale("upgrade")  # the stranger runs it first
    assert first.exit_code == 0, first.output
    assert "--genesis-key" in first.output
    assert Record.open(old).trust.genesis == ""

    someone_elses = mallory.hale("upgrade", "--genesis-key", alice.key().fingerprint)
    assert someone_elses.exit_code == 1, someone_elses.output
    assert "is not the key you sign with" in someone_elses.output
    assert Record.open(old).trust.genesis == ""

    adopted = alice.hale("upgrade", "--genesis-key", alice.key().fingerprint)
    assert adopted.exit_code == 0, adopted.output
    warnings = [w for w in adopted.output.splitlines() if w.startswith("warning:")]
    assert len(warnings) == 1, adopted.output
    trust = Record.open(old).trust
    assert trust.genesis == alice.key().fingerprint
    assert trust.board_holder() == "alice"

    late = mallory.hale("upgrade", "--genesis-key", mallory.key().fingerprint)
    assert late.exit_code == 1 and "genesis is" in late.output, late.output
    assert Record.open(old).trust.genesis == alice.key().fingerprint


def test_the_board_rotates_its_key_and_revokes_a_strangers(
    project: Path, alice: Person, mallory: Person, tmp_path: Path
) -> None:
    assert mallory.hale("key", "register").exit_code == 0
    renewed = Person("alice", tmp_path / "home-alice-new")  # alice's new laptop
    old_key, new_key = alice.key().fingerprint, renewed.key().fingerprint

    rotated = alice.hale("key", "rotate", renewed.key().openssh())
    assert rotated.exit_code == 0, rotated.output
    trust = Record.open(project).trust
    assert trust.root == new_key and trust.keys[old_key].revoked
    kinds = [r.kind for r in Record.open(project).rows(kind=[KEY_REGISTERED, KEY_REVOKED])]
    assert kinds[-2:] == [KEY_REGISTERED, KEY_REVOKED]

    refused = alice.hale("fill", "editor", "alice")  # the old key proves nothing now
    assert refused.exit_code == 1, refused.output
    filled = renewed.hale("fill", "editor", "alice")
    assert filled.exit_code == 0, filled.output

    assert alice.hale("key", "revoke", mallory.key().fingerprint).exit_code == 1
    revoked = renewed.hale("key", "revoke", mallory.key().fingerprint)
    assert revoked.exit_code == 0, revoked.output
    assert Record.open(project).trust.keys[mallory.key().fingerprint].revoked
