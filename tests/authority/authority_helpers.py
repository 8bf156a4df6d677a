"""A person for the authority tests: their own home (so their own key) and name."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner, Result

from hale_runtime.cli import hale
from hale_runtime.record import keys
from hale_runtime.record.identity import CLONE_KEY


@dataclass
class Person:
    name: str
    home: Path

    def env(self, node: str | None = None) -> dict[str, str | None]:
        """The environment this person runs hale in; `node` is a HALE_DNA_NODE to claim."""
        return {
            "HOME": str(self.home),
            "LOGNAME": self.name,
            "USER": self.name,
            "HALE_DNA_KEY": None,  # their own key: the one hale makes in their config folder
            "XDG_CONFIG_HOME": None,
            "HALE_DNA_NODE": node,
        }

    def hale(self, *args: str, node: str | None = None, at: Path | None = None) -> Result:
        """`hale dna ARGS` as this person (or claiming to be `node`), in folder `at`
        (default: where the test is)."""
        with contextlib.chdir(at) if at is not None else contextlib.nullcontext():
            return CliRunner().invoke(hale, ["dna", *args], env=self.env(node))

    def key(self) -> keys.SigningKey:
        """This person's key, made as hale makes it."""
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / ".config").mkdir(exist_ok=True)
        own = self.home / ".config" / keys.OWN_KEY
        if not own.exists():
            keys._make(own)
        private, _ = keys._read(own)
        assert private is not None
        return keys.SigningKey(private, own)

    def seeded(self, seed: int) -> Person:
        """This person with a key made from `seed` (the same fingerprint every run)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        own = self.home / ".config" / keys.OWN_KEY
        own.parent.mkdir(parents=True, exist_ok=True)
        private = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
        own.write_bytes(
            private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.OpenSSH,
                serialization.NoEncryption(),
            )
        )
        own.chmod(0o600)
        return self

    def who(self) -> str:
        return f"{self.name}@box:c0ffee00"


def endorse_the_organization(board: Person) -> None:
    """`board` (the Board) endorses the session's key for `org`, the identity the
    tests' organization and nodes write as: their rows need a key the record binds."""
    public = keys.user_key().openssh()  # the session's key (tests/conftest.py)
    result = board.hale("key", "register", "org", public)
    assert result.exit_code == 0, result.output


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice")


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory")


@pytest.fixture
def project(tmp_path: Path, alice: Person, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project alice made (`hale dna new`): her key is the record's genesis."""
    path = tmp_path / "project"
    pygit2.init_repository(str(path), initial_head="main").config[CLONE_KEY] = "c0ffee00"
    result = alice.hale("new", str(path))
    assert result.exit_code == 0, result.output
    monkeypatch.chdir(path)
    endorse_the_organization(alice)
    return path
