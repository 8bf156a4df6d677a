"""The writer's signing key: found once, made once, never shown.

A writer signs with an Ed25519 key. The first of these that holds one is
used:

1. the file `HALE_DNA_KEY` names (an OpenSSH private key, as `ssh-keygen
   -t ed25519` writes it), for a node that runs under a key of its own;
2. the user's SSH key, `~/.ssh/id_ed25519`, when it is Ed25519 and has no
   passphrase (a key behind a passphrase cannot sign unattended, so it is
   passed over and `hale dna whoami` says so);
3. hale's own key, `<config>/hale/signing_key` (`$XDG_CONFIG_HOME`, else
   `~/.config`), made on first use: written to a private temporary file
   (mode 0600, in a folder of mode 0700) and linked into place, so two
   processes making it at once end with one key, the first one linked.

A key is named by its fingerprint, the one `ssh-keygen -l` prints
(`SHA256:` and the unpadded base64 of the SHA-256 of its OpenSSH public
blob), so a user can compare it with what their SSH tooling says.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hale_runtime.errors import HaleRuntimeError

if TYPE_CHECKING:  # cryptography is imported where a row is signed or verified: a
    # verb that only reads (`status`) does not pay its import
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_ENV = "HALE_DNA_KEY"
SSH_KEY = Path(".ssh") / "id_ed25519"
OWN_KEY = Path("hale") / "signing_key"
SSH_TYPE = "ssh-ed25519"


class KeyUnusable(HaleRuntimeError):
    """No signing key could be found or made; the message says where it looked."""


def fingerprint(public: bytes) -> str:
    """`SHA256:<base64>` of a raw 32-byte Ed25519 public key, as ssh-keygen prints it."""
    digest = hashlib.sha256(_ssh_blob(public)).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def _ssh_blob(public: bytes) -> bytes:
    name = SSH_TYPE.encode()
    return len(name).to_bytes(4, "big") + name + len(public).to_bytes(4, "big") + public


def encode_public(public: bytes) -> str:
    """A raw public key as rows carry it: standard base64 (44 characters)."""
    return base64.b64encode(public).decode()


def decode_public(text: str) -> bytes | None:
    """The raw 32 bytes of a public key given as a row carries it, or as an
    OpenSSH line (`ssh-ed25519 AAAA… comment`); None when it is neither."""
    if not isinstance(text, str):
        return None
    parts = text.split()
    if len(parts) >= 2 and parts[0] == SSH_TYPE:
        blob = _b64(parts[1])
        if blob is None or len(blob) != 51 or not blob.startswith(_ssh_blob(b"")[:15]):
            return None
        return blob[-32:]
    raw = _b64(text.strip())
    return raw if raw is not None and len(raw) == 32 else None


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        return None


def verify(public: bytes, signature: bytes, message: bytes) -> bool:
    """Whether `signature` is `public`'s over `message`."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class SigningKey:
    """A private key, where it came from, and what a row says of it."""

    private: Ed25519PrivateKey
    source: Path
    note: str = ""  # why a likelier key was passed over, for `whoami`

    @functools.cached_property
    def public(self) -> bytes:  # asked at every signed append: derived once
        from cryptography.hazmat.primitives import serialization

        return self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @functools.cached_property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def openssh(self) -> str:
        """The public key as one OpenSSH line (what a user hands the Board)."""
        return f"{SSH_TYPE} {base64.b64encode(_ssh_blob(self.public)).decode()}"

    def sign(self, message: bytes) -> bytes:
        return self.private.sign(message)


_loaded: dict[tuple[str, str], SigningKey] = {}


def user_key() -> SigningKey:
    """This user's signing key (see the module's comment); KeyUnusable when
    none can be found or made. Loaded once a process for each place it names."""
    chosen = os.environ.get(KEY_ENV) or ""
    home = str(Path.home())
    found = _loaded.get((chosen, home))
    if found is None:
        found = _loaded[(chosen, home)] = _find(chosen)
    return found


def _find(chosen: str) -> SigningKey:
    if chosen:
        path = Path(chosen).expanduser()
        key, why = _read(path)
        if key is None:
            raise KeyUnusable(f"{KEY_ENV}={chosen}: {why}")
        return SigningKey(key, path)
    ssh = Path.home() / SSH_KEY
    note = ""
    if ssh.exists():
        key, why = _read(ssh)
        if key is not None:
            return SigningKey(key, ssh)
        note = f"{tilde(ssh)} is not used: {why}"
    own = config_home() / OWN_KEY
    if not own.exists():
        _make(own)
    key, why = _read(own)
    if key is None:
        raise KeyUnusable(f"{own}: {why}")
    return SigningKey(key, own, note)


def config_home() -> Path:
    """The user's config folder: `$XDG_CONFIG_HOME`, else `~/.config`."""
    found = os.environ.get("XDG_CONFIG_HOME")
    return Path(found) if found and Path(found).is_absolute() else Path.home() / ".config"


def tilde(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def _read(path: Path) -> tuple[Ed25519PrivateKey | None, str]:
    """(the Ed25519 key in an OpenSSH or PEM private key file, or None and why)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    loader = (
        serialization.load_ssh_private_key
        if b"OPENSSH PRIVATE KEY" in data
        else serialization.load_pem_private_key
    )
    try:
        key = loader(data, password=None)
    except TypeError:
        return None, "it has a passphrase, and a signer runs unattended"
    except (ValueError, UnsupportedAlgorithm) as exc:
        return None, f"it is not a private key hale can read ({str(exc).rstrip('.')})"
    if not isinstance(key, Ed25519PrivateKey):
        return None, "it is not an Ed25519 key"
    return key, ""


def _make(path: Path) -> None:
    """Write a new key at `path`, private from its first byte; a key another
    process linked there first is kept."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass  # another process made it first: its key is the one
        finally:
            temporary.unlink(missing_ok=True)
    except OSError as exc:
        raise KeyUnusable(f"no signing key, and none can be made at {path}: {exc}") from exc
