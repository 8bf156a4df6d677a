"""Redaction through the real CLI over real clones and a bare remote: a
protected body travels with the sync, `hale dna redact` erases it by digest
in every clone that syncs (loose or packed) and at the remote, `history`
shows `[redacted]`, and the chain and its ids stay as they were. `git
cat-file` on each repository is the judge, over every object it holds,
reachable or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HALE = str(Path(sys.executable).parent / "hale")
SECRET = "card 4111-1111 of ann@example.com"


def run(cwd: Path, *argv: str, env: dict | None = None, code: int = 0) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})  # fmt: skip
    assert done.returncode == code, f"{argv}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def hale(cwd: Path, *args: str, **kw) -> str:
    return run(cwd, HALE, "dna", *args, **kw)


def rows(cwd: Path, *args: str) -> list[dict]:
    return [json.loads(line) for line in hale(cwd, "history", *args, "--json").splitlines()]


def gitdir(repo: Path) -> str:
    return str(repo / ".git") if (repo / ".git").is_dir() else str(repo)


def holds(repo: Path, digest: str) -> bool:
    """Whether the repository can read the object back, or holds the secret in any object."""
    exists = subprocess.run(["git", f"--git-dir={gitdir(repo)}", "cat-file", "-e", digest],
                            capture_output=True).returncode == 0  # fmt: skip
    every = subprocess.run(
        ["git", f"--git-dir={gitdir(repo)}", "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
    ).stdout
    return exists or SECRET.encode() in every


def a_key(path: Path) -> str:
    """A person's own signing key, written where HALE_DNA_KEY names it; its public line."""
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.OpenSSH,
                                       ser.NoEncryption()))  # fmt: skip
    path.chmod(0o600)
    return key.public_key().public_bytes(ser.Encoding.OpenSSH, ser.PublicFormat.OpenSSH).decode()


@pytest.fixture
def world(tmp_path: Path):
    remote = tmp_path / "remote.git"
    run(tmp_path, "git", "init", "-q", "--bare", "--initial-branch=main", str(remote))
    hale(tmp_path, "new", "a")
    a = tmp_path / "a"
    run(a, "git", "remote", "add", "origin", str(remote))
    run(a, "git", "push", "-q", "origin", "main")
    hale(a, "sync")
    return tmp_path, remote, a


def clone(tmp_path: Path, remote: Path, name: str) -> Path:
    run(tmp_path, "git", "clone", "-q", str(remote), name)
    hale(tmp_path / name, "sync")
    return tmp_path / name


def test_a_redacted_body_cannot_be_read_back_from_any_clone_that_synced(world):
    tmp_path, remote, a = world
    said = hale(a, "sense", "billing", "down", "--other", "--detail", SECRET)
    assert said.endswith("recorded at the remote: billing down\n")
    (reading,) = rows(a, "--kind", "reading.taken")
    digest = reading["body"]["protected"]
    assert reading["protected_body"] == {"detail": SECRET} and SECRET not in json.dumps(
        reading["body"]
    )
    b = clone(tmp_path, remote, "b")
    assert rows(b, "--kind", "reading.taken")[0]["protected_body"] == {"detail": SECRET}
    run(b, "git", "repack", "-a", "-d", "-q")  # b keeps it packed; a keeps it loose
    assert holds(a, digest) and holds(b, digest) and holds(remote, digest)
    chain = [(r["seq"], r["id"]) for r in rows(b)]

    said = hale(a, "redact", reading["id"][:16], "--why", "personal data")
    assert said.startswith(f"redact: row {reading['id'][:12]}'s protected body {digest[:12]} ")
    assert "erased in this clone and at origin" in said
    assert not holds(a, digest) and not holds(remote, digest)
    hale(b, "sync")
    c = clone(tmp_path, remote, "c")  # a clone made after: never receives it
    for repo in (a, b, c, remote):
        assert not holds(repo, digest), repo
    for clone_ in (a, b, c):
        shown = hale(clone_, "history", "--kind", "reading.taken")
        assert shown.endswith(" protected: [redacted]\n") and SECRET not in shown
        # the chain and its ids are as they were, the redaction after them
        after = [(r["seq"], r["id"]) for r in rows(clone_)]
        assert after[: len(chain)] == chain
        assert rows(clone_)[-1]["kind"] == "row.redacted"
    assert hale(a, "redact", reading["id"]).startswith("redact: row ")  # again: already
    assert "already redacted" in hale(a, "redact", reading["id"])


def test_only_the_writer_or_the_boards_holder_may_redact(world):
    tmp_path, remote, a = world
    ann, bob = {"HALE_DNA_NODE": "ann@box:a"}, {"HALE_DNA_NODE": "bob@box:b"}
    hale(a, "sense", "billing", "down", "--other", "--detail", SECRET, env=ann)
    (reading,) = rows(a, "--kind", "reading.taken")
    # a redaction proves its writer, Board held or not: bob signs with org's key
    said = hale(a, "redact", reading["id"], env=bob, code=1)
    assert said.startswith(f"hale: redact: {reading['id']} names bob but is signed by org's key ")
    assert said.endswith("; nothing written\n") and len(said.splitlines()) == 1
    assert rows(a, "--kind", "row.redacted") == []
    carol = {"HALE_DNA_NODE": "carol@box:c", "HALE_DNA_KEY": str(tmp_path / "carol")}
    public = a_key(tmp_path / "carol")
    hale(a, "key", "register", "carol", public)  # by genesis, which holds the unheld Board
    hale(a, "fill", "board", "carol")
    said = hale(a, "redact", reading["id"], env=bob, code=1)
    assert said == (
        f"hale: redact: row {reading['id'][:12]} was written by ann; only its writer or the "
        "Board's holder (carol) may redact it; nothing written\n"
    )
    assert rows(a, "--kind", "row.redacted") == []
    assert "redact: ROW is a row's id" in hale(a, "redact", "zz", code=2)
    missing = hale(a, "redact", "0" * 64, code=1)
    assert missing == "hale: redact: the record holds no such row; nothing written\n"
    hale(a, "redact", reading["id"], env=carol)
    assert hale(a, "history", "--kind", "reading.taken").endswith("protected: [redacted]\n")


def test_any_row_name_is_refused_with_why_and_nothing_written(tmp_path: Path):
    """The door under hypothesis: whatever ROW says, one line, exit 1 or 2, no row."""
    from click.testing import CliRunner
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from hale_runtime.cli import hale as cli
    from hale_runtime.record import Record

    hale(tmp_path, "new", "p")
    root = tmp_path / "p"
    before = len(Record.open(root).rows(poison=True))

    @settings(max_examples=60, deadline=None)
    @given(name=st.one_of(st.text(max_size=70), st.text("0123456789abcdef", min_size=12,
                                                         max_size=64)))  # fmt: skip
    def refused(name: str) -> None:
        cwd = os.getcwd()
        os.chdir(root)
        try:
            done = CliRunner().invoke(cli, ["dna", "redact", "--", name])
        finally:
            os.chdir(cwd)
        assert done.exit_code in (1, 2), done.output
        assert done.exception is None or isinstance(done.exception, SystemExit)
        assert "Traceback" not in done.output

    refused()
    assert len(Record.open(root).rows(poison=True)) == before
