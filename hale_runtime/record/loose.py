"""Writing a batch of git loose objects, fsync'd together before any ref names them.

A record append writes three objects (blob, tree, commit). libgit2 writes
each one on its own: it first looks for the object everywhere (a rescan of
the pack folder on every miss), and with its fsync option on it flushes
each file and its folder before writing the next. Here a batch is written as
git itself writes a loose object (zlib of `<type> <size>\\0<data>`, named by
its SHA-1, a temporary file in `objects/` renamed into place, mode 0444),
and made durable in one pass: every file is fsync'd before its rename, then
every folder that gained an entry once. Only then may a ref point at them.

A repository whose objects are not SHA-1 loose files this writer understands
(another object format) is written through libgit2 instead.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path

import pygit2

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_folders: dict[str, Path | None] = {}  # gitdir -> its loose objects' folder (asked once)


def objects_dir(repo: pygit2.Repository) -> Path | None:
    """The folder of loose objects, or None when this writer should not be used."""
    if repo.path not in _folders:
        _folders[repo.path] = _find_objects_dir(repo)
    return _folders[repo.path]


def common_dir(repo: pygit2.Repository) -> Path:
    """Where the shared objects and refs live (a linked worktree's main repository)."""
    gitdir = Path(repo.path)
    common = gitdir / "commondir"
    return (gitdir / common.read_text().strip()).resolve() if common.is_file() else gitdir


def _find_objects_dir(repo: pygit2.Repository) -> Path | None:
    gitdir = common_dir(repo)
    config = repo.config
    if "extensions.objectformat" in config and str(config["extensions.objectformat"]) != "sha1":
        return None
    folder = gitdir / "objects"
    return folder if folder.is_dir() else None


class Batch:
    """Loose objects written together; `settle()` makes them durable."""

    def __init__(self, folder: Path, durable: bool):
        self.folder = str(folder)
        self.durable = durable
        self._touched: set[str] = set()  # folders that gained an entry

    def put(self, kind: bytes, data: bytes) -> bytes:
        """Write one object; its raw SHA-1."""
        raw = b"%s %d\0%s" % (kind, len(data), data)
        digest = hashlib.sha1(raw)
        hexid = digest.hexdigest()
        fan = os.path.join(self.folder, hexid[:2])
        temp = os.path.join(self.folder, f"tmp_obj_hale_{os.urandom(8).hex()}")
        fd = os.open(temp, _FLAGS, 0o444)
        try:
            os.write(fd, zlib.compress(raw, 1))
            if self.durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.rename(temp, os.path.join(fan, hexid[2:]))
        except FileNotFoundError:  # the fan-out folder does not exist yet
            os.makedirs(fan, exist_ok=True)
            self._touched.add(self.folder)
            os.rename(temp, os.path.join(fan, hexid[2:]))
        self._touched.add(fan)
        return digest.digest()

    def settle(self) -> None:
        """fsync every folder that gained an entry (the files were fsync'd as written)."""
        if self.durable:
            for folder in sorted(self._touched, key=len, reverse=True):
                sync_path(folder)
        self._touched.clear()


def sync_ref(repo: pygit2.Repository, name: str) -> None:
    """fsync a loose ref just written (libgit2 wrote it by rename) and its folder."""
    path = common_dir(repo) / name
    sync_path(str(path))
    sync_path(str(path.parent))


def sync_path(path: str) -> None:
    """fsync a file or a folder by name."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
