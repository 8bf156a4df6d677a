"""A record made before signing: read as before, until `hale dna upgrade
--genesis-key` makes the key its operator names its genesis; after that an unsigned row of
authority is refused, and the rows written before it still read."""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person
from hostile import append_lines, line, row_id
from older import old_project

from hale_runtime.record import Record
from hale_runtime.record.kinds import POSITION_FILLED


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = old_project(tmp_path / "old")
    monkeypatch.chdir(path)
    return path


def holders(path: Path) -> list[str]:
    return [r.body["holder"] for r in Record.open(path).rows(kind=POSITION_FILLED)]


def test_upgrade_makes_a_genesis_and_unsigned_authority_is_refused_after_it(
    old: Path, alice: Person, mallory: Person
) -> None:
    before = line(POSITION_FILLED, "position:editor", {"position": "editor", "holder": "ann"})
    append_lines(old, [before])  # unsigned, by anyone: read as it always was
    assert holders(old) == ["ann"]
    assert "no genesis yet" in alice.hale("whoami").output
    key = alice.key()
    upgraded = alice.hale("upgrade", "--genesis-key", key.fingerprint)
    assert upgraded.exit_code == 0, upgraded.output
    assert upgraded.output.splitlines()[-1] == (
        f"record: genesis is alice's key {key.fingerprint} (key.registered); "
        "it holds the Board until the Board is filled"
    )
    assert "record:" not in alice.hale("upgrade").output  # once
    after = line(POSITION_FILLED, "position:editor", {"position": "editor", "holder": "mallory"})
    append_lines(old, [after])
    assert holders(old) == ["ann"]
    assert Record.open(old).poison_of(Record.open(old).get(row_id(after))) == (
        "refused: position:editor is not signed"
    )
    result = mallory.hale("fill", "editor", "mallory")
    assert result.exit_code == 1 and "refused: position:editor is signed by" in result.output
    assert alice.hale("fill", "editor", "bob").exit_code == 0
    assert holders(old) == ["ann", "bob"]


def test_genesis_hands_a_board_held_before_signing_to_its_holder(
    old: Path, alice: Person, tmp_path: Path
) -> None:
    """The Board was filled before signing (ann holds it): alice upgrades, so
    genesis is hers, but ann holds the Board; genesis binds ann's key."""
    board = line(POSITION_FILLED, "position:board", {"position": "board", "holder": "ann"})
    append_lines(old, [board])
    assert alice.hale("upgrade", "--genesis-key", alice.key().fingerprint).exit_code == 0
    ann = Person("ann", tmp_path / "home-ann")
    refused = ann.hale("fill", "editor", "ann")
    assert refused.exit_code == 1 and "does not bind to ann" in refused.output
    bound = alice.hale("key", "register", "ann", ann.key().openssh())
    assert "is ann's, endorsed (key.registered)" in bound.output, bound.output
    filled = ann.hale("fill", "editor", "ann")
    assert filled.exit_code == 0, filled.output
    assert holders(old) == ["ann", "ann"]
