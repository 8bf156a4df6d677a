"""Writing a batch of git loose objects, fsync'd together before any ref names them.

A record append writes three objects (blob, tree, commit). libgit2 writes
each one on its own: it first looks for the object everywhere (a rescan of
the pack folder on every miss), and with its fsync option on it flushes
each file and its folder before writing the next. Here a batch is written as
git itself writes a loose object (zlib of `<type> <size>\\0<data>`, named by
its SHA-1, mode 0444), and made durable in one pass: every file is
fsync'd as written, then every folder that gained an entry once. Only then
may a ref point at them.

A file is created under its own name at once (exclusively), not written
aside and renamed into place as git does: a rename costs a metadata write of
its own, three an append, and nothing reads an object before a ref names
it, which happens only once `put` returned. A write cut short (a kill) can
leave a torn file under the name; the same object written again finds the
name taken, reads what is there, and replaces it by rename unless it is
whole.

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
        path = os.path.join(fan, hexid[2:])
        try:
            fd = os.open(path, _FLAGS, 0o444)
        except FileNotFoundError:  # the fan-out folder does not exist yet
            os.makedirs(fan, exist_ok=True)
            self._touched.add(self.folder)
            fd = os.open(path, _FLAGS, 0o444)
        except FileExistsError:
            if not _holds(path, raw):
                self._replace(path, raw)  # a torn write of the same object: made whole
            elif self.durable:
                sync_path(path)  # whole, but maybe written by a writer that did not flush
            self._touched.add(fan)
            return digest.digest()
        self._fill(fd, raw)
        self._touched.add(fan)
        return digest.digest()

    def _fill(self, fd: int, raw: bytes) -> None:
        try:
            os.write(fd, zlib.compress(raw, 1))
            if self.durable:
                os.fsync(fd)
        finally:
            os.close(fd)

    def _replace(self, path: str, raw: bytes) -> None:
        temp = os.path.join(self.folder, f"tmp_obj_hale_{os.urandom(8).hex()}")
        self._fill(os.open(temp, _FLAGS, 0o444), raw)
        os.replace(temp, path)

    def settle(self) -> None:
        """fsync every folder that gained an entry (the files were fsync'd as written)."""
        if self.durable:
            for folder in sorted(self._touched, key=len, reverse=True):
                sync_path(folder)
        self._touched.clear()


def _holds(path: str, raw: bytes) -> bool:
    """Whether the object file at `path` is whole and holds `raw`."""
    try:
        with open(path, "rb") as held:
            return zlib.decompress(held.read()) == raw
    except (OSError, zlib.error):
        return False


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
