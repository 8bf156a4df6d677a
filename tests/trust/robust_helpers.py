"""Helpers for the robust lane's trust tests: a bare forge and clones of it
(real git), and raw commits written straight onto a repository's record."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from hale_runtime.record import store

GENOME = {"dna/org/main.hl": 'fn organization() -> String {\n    return "tiny";\n}\n'}
WHEN = 1_767_225_600_000


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def forge_and_clone(tmp: Path, name: str = "a") -> tuple[Path, Path]:
    """(a bare forge holding a tiny genome, a clone of it named `name`)."""
    forge, src = tmp / "forge.git", tmp / "src"
    git(tmp, "init", "-q", "--bare", "--initial-branch=main", str(forge))
    git(tmp, "init", "-q", "--initial-branch=main", str(src))
    for rel, text in GENOME.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    git(src, "add", "dna")
    git(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "genome")
    git(src, "remote", "add", "origin", str(forge))
    git(src, "push", "-q", "origin", "main")
    return forge, clone(forge, tmp / name)


def clone(forge: Path, path: Path) -> Path:
    git(path.parent, "clone", "-q", str(forge), str(path))
    return path


def commit_lines(repo_path: Path, parent: pygit2.Oid | None, lines: list[str]) -> pygit2.Oid:
    """A commit of raw row lines on `parent` (not moved onto any ref)."""
    repo = pygit2.Repository(str(repo_path))
    text = "".join(f"{one}\n" for one in lines)
    return store.write_commit(repo, parent, text, "mallory", WHEN)


def record_tip(repo_path: Path, ref: str = store.RECORD_REF) -> pygit2.Oid | None:
    return store.read_ref(pygit2.Repository(str(repo_path)), ref)
