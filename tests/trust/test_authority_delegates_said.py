"""What `hale dna key delegate` and a delegate's `key register` print, pinned:
the Board delegates, the delegate endorses, the refusals (the Board's own
name, delegating on, after the revocation). Keys come from fixed seeds so
the fingerprints are the same every run."""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person

from hale_runtime.record import keys


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice").seeded(1)


def test_what_delegating_says(project: Path, alice: Person, tmp_path: Path, snapshot) -> None:
    bob, carol, dave, usurper = (
        Person(name, tmp_path / f"home-{n}").seeded(seed)
        for n, (name, seed) in enumerate([("bob", 3), ("carol", 4), ("dave", 5), ("alice", 6)])
    )
    lines: list[str] = []
    for person, *args in [
        (alice, "key", "register", "bob", bob.key().openssh()),
        (bob, "key", "register", "carol", carol.key().openssh()),
        (alice, "key", "delegate", "bob"),
        (bob, "key", "register", "carol", carol.key().openssh()),
        (bob, "key", "register", "alice", usurper.key().openssh()),
        (bob, "key", "delegate", "carol"),
        (alice, "key", "delegate", "--revoke", "bob"),
        (bob, "key", "register", "dave", dave.key().openssh()),
        (alice, "key", "delegate", "--revoke", "bob"),
        (alice, "key", "delegate", "position:board"),
        (alice, "key", "list"),
    ]:
        said = person.hale(*args)
        shown = " ".join("<public key>" if a.startswith(keys.SSH_TYPE) else a for a in args)
        lines += [f"$ {person.name}: hale dna {shown}  [exit {said.exit_code}]",
                  said.output.rstrip("\n")]  # fmt: skip
    text = "\n".join(lines).replace(keys.user_key().fingerprint, "<the session's key>")
    assert text == snapshot
