"""What the verbs of authority print, pinned: whoami, key register, revoke
and list, and a refusal of each act of authority, as two people see them.
The keys are made from fixed seeds so their fingerprints are the same every
run; the host and the Reviews' ids (receipt digests) are masked."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from authority_helpers import Person

ALICE = "alice@box:c0ffee00"


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice").seeded(1)


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory").seeded(2)


def test_what_the_verbs_of_authority_say(
    project: Path, alice: Person, mallory: Person, tmp_path: Path, snapshot
) -> None:
    bob = Person("bob", tmp_path / "home-bob").seeded(3)
    review = next(w for w in alice.hale("review").output.split() if w.startswith("k:"))
    said: list[str] = []

    def run(person: Person, *args: str, node: str | None = None) -> None:
        result = person.hale(*args, node=node)
        claimed = f" (as {node})" if node else ""
        line = f"$ {person.name}{claimed}: hale dna {' '.join(args)}  [exit {result.exit_code}]"
        said.append(line)
        said.append(result.output.rstrip("\n"))

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
    text = "\n".join(said).replace(f"@{socket.gethostname()}:", "@<host>:")
    assert re.sub(r"k:[0-9a-f]{12}", "k:<review>", text) == snapshot
