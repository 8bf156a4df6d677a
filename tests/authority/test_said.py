"""What the verbs of authority print, pinned: whoami, key register, revoke
and list, grant, and a refusal of each act of authority, as two people see them.
The keys are made from fixed seeds so their fingerprints are the same every
run; the host and the Reviews' ids (receipt digests) are masked."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from authority_helpers import Person

from hale_runtime.record import keys

ALICE = "alice@box:c0ffee00"


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice").seeded(1)


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory").seeded(2)


class Said:
    """What each person ran and what hale printed, as one text to pin."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, person: Person, *args: str, node: str | None = None) -> None:
        result = person.hale(*args, node=node)
        claimed = f" (as {node})" if node else ""
        line = f"$ {person.name}{claimed}: hale dna {' '.join(args)}  [exit {result.exit_code}]"
        self.lines += [line, result.output.rstrip("\n")]

    def text(self) -> str:
        text = "\n".join(self.lines).replace(f"@{socket.gethostname()}:", "@<host>:")
        text = text.replace(keys.user_key().fingerprint, "<the session's key>")
        return re.sub(r"k:[0-9a-f]{12}", "k:<review>", text)


def reviews(person: Person) -> list[str]:
    return [w for w in person.hale("review").output.split() if w.startswith("k:")]


def test_what_the_verbs_of_authority_say(
    project: Path, alice: Person, mallory: Person, tmp_path: Path, snapshot
) -> None:
    bob = Person("bob", tmp_path / "home-bob").seeded(3)
    review = reviews(alice)[0]
    run = Said()

    run(alice, "whoami")
    run(mallory, "whoami")
    run(mallory, "review", review, "approve", node=ALICE)
    run(mallory, "key", "register")
    run(mallory, "key", "register")  # once is enough
    run(mallory, "fill", "board", "mallory")
    run(mallory, "fill", "editor", "mallory", node=ALICE)
    run(alice, "fill", "board", "bob")
    run(alice, "key", "register", "bob", bob.key().openssh())
    run(alice, "fill", "board", "bob")
    run(alice, "review", review, "approve")
    run(bob, "whoami")
    run(bob, "key", "revoke", mallory.key().fingerprint, "--why", "impersonation")
    run(alice, "key", "list")
    run(mallory, "whoami")
    assert run.text() == snapshot


def test_what_the_grant_verb_says(
    project: Path, alice: Person, mallory: Person, tmp_path: Path, snapshot
) -> None:
    """The Board grants the Leader Reviews, the Leader decides inside the
    grant and not after it is revoked; a stranger grants nothing."""
    bob = Person("bob", tmp_path / "home-bob").seeded(3)
    first, second = reviews(alice)[:2]
    run = Said()
    run(alice, "key", "register", "bob", bob.key().openssh())
    run(alice, "fill", "leader", "bob")
    run(alice, "grant")
    run(bob, "review", first, "approve")
    run(mallory, "grant", "leader", "--reviews", "operating", node=ALICE)
    run(alice, "grant", "leader", "--reviews", "shaping")
    run(alice, "grant", "leader", "--reviews", "operating", "--until", "2099-01-01T00:00Z")
    run(alice, "grant")
    run(bob, "review", first, "approve")
    run(bob, "grant", "revoke", "leader")
    run(alice, "grant", "revoke", "leader")
    run(bob, "review", second, "approve")
    run(alice, "grant", "editor", "--reviews", "operating")
    assert run.text() == snapshot
