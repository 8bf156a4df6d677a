"""The writer's key: found in the place it should be, made once, private."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key
from record_helpers import run_python

from hale_runtime.record import keys


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with no key anywhere yet."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(keys.KEY_ENV)
    keys._loaded.clear()
    return tmp_path


def write_key(path: Path, key, password: bytes | None = None) -> None:
    """An OpenSSH private key file (PKCS#8 PEM when it has a passphrase: writing
    OpenSSH's own encrypted form needs bcrypt, and hale reads either)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if password:
        form = serialization.PrivateFormat.PKCS8
        encryption = serialization.BestAvailableEncryption(password)
    else:
        form, encryption = serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, form, encryption))


def test_hale_makes_its_own_key_once_private(home: Path) -> None:
    made = keys.user_key()
    assert made.source == home / ".config" / "hale" / "signing_key"
    assert stat.S_IMODE(made.source.stat().st_mode) == 0o600
    assert stat.S_IMODE(made.source.parent.stat().st_mode) == 0o700
    keys._loaded.clear()
    assert keys.user_key().fingerprint == made.fingerprint  # read back, not made again


def test_the_config_folder_follows_xdg(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "elsewhere"))
    assert keys.user_key().source == home / "elsewhere" / "hale" / "signing_key"


def test_the_users_ssh_key_is_used_when_it_can_sign(home: Path) -> None:
    ssh = Ed25519PrivateKey.generate()
    write_key(home / ".ssh" / "id_ed25519", ssh)
    found = keys.user_key()
    assert found.source == home / ".ssh" / "id_ed25519" and found.note == ""
    assert found.public == ssh.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


@pytest.mark.parametrize("kind", ["passphrase", "rsa", "garbage"])
def test_an_ssh_key_that_cannot_sign_is_passed_over_and_said(home: Path, kind: str) -> None:
    path = home / ".ssh" / "id_ed25519"
    if kind == "passphrase":
        write_key(path, Ed25519PrivateKey.generate(), b"secret")
    elif kind == "rsa":
        write_key(path, generate_private_key(public_exponent=65537, key_size=2048))
    else:
        path.parent.mkdir(parents=True)
        path.write_text("not a key\n")
    found = keys.user_key()
    assert found.source == home / ".config" / "hale" / "signing_key"
    why = {"passphrase": "has a passphrase", "rsa": "not an Ed25519 key", "garbage": "not a"}
    assert found.note.startswith("~/.ssh/id_ed25519 is not used: ") and why[kind] in found.note


def test_the_key_a_node_is_given(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = home / "node.key"
    write_key(path, Ed25519PrivateKey.generate())
    monkeypatch.setenv(keys.KEY_ENV, str(path))
    assert keys.user_key().source == path
    monkeypatch.setenv(keys.KEY_ENV, str(home / "missing.key"))
    with pytest.raises(keys.KeyUnusable, match="missing.key: cannot be read"):
        keys.user_key()


def test_the_fingerprint_is_the_one_ssh_keygen_prints(home: Path) -> None:
    key = keys.user_key()
    blob = base64.b64decode(key.openssh().split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    assert key.fingerprint == f"SHA256:{digest}"
    assert keys.decode_public(key.openssh()) == key.public
    assert keys.decode_public(keys.encode_public(key.public)) == key.public
    assert keys.decode_public("ssh-rsa AAAA") is None and keys.decode_public("x") is None


MAKER = """
import sys
from hale_runtime.record import keys
print(keys.user_key().fingerprint)
"""


def test_two_processes_making_the_key_at_once_end_with_one(home: Path) -> None:
    env = {**os.environ, "HOME": str(home)}
    env.pop(keys.KEY_ENV, None)
    workers = [run_python(MAKER, env=env) for _ in range(4)]
    printed = {w.communicate(timeout=60)[0].strip() for w in workers}
    assert len(printed) == 1 and printed == {keys.user_key().fingerprint}
    assert [p.name for p in (home / ".config" / "hale").iterdir()] == ["signing_key"]
