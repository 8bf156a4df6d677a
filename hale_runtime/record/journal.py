"""The record's journal: one fdatasync makes an append durable.

fsyncing a commit's three loose objects, their folders and the moved ref
costs eight flushes an append. Instead, a durable append writes its objects
without flushing, then appends its rows to this journal and fdatasyncs it
once, and only then moves the ref: the rows are on disk before any reader,
here or in another process, can see them. This is a database's group commit:
the journal is the write-ahead log, the chain in git is the table.

The file, `<gitdir>/hale/record.journal`, is written once full of zeros and
then only overwritten in place, as a database recycles its log: an
fdatasync then flushes data alone, with no size or extent to commit through
the file system's own journal, which other writers keep busy. It holds a
header (the generation and the tip known durable) and frames from offset
HEAD: a 4-byte length, the 4-byte generation, a 4-byte CRC-32 of both and
the batch's rows as stored lines. A read stops at the first frame that is
torn, or of another generation (what an earlier generation left behind);
a torn frame's append never returned, so nothing acted on it.

Settling (once the frames pass SETTLE_BYTES, and on a clean close) flushes
the whole file system (`syncfs`), so every object and ref written so far is
durable, then starts the next generation: the header names it and the
current tip, and the frames start again from HEAD. Recovery (record.py, on
open) appends any journalled row the chain lacks: after a power loss the
ref may have fallen back, or point at objects that did not reach the disk;
then it is set back to the settled tip first.

Appends in one clone hold the journal's lock (flock, re-entrant within one
Journal) from reading the tip to moving the ref, so hale writers do not race
each other's compare-and-swap. flock is not fair: a holder that unlocks and
locks again (an engine's hold letting others in) would mostly win against a
waiter the kernel has yet to schedule. So the lock is taken through a gate,
a second flock held only while waiting for the first: a waiter holds the
gate, and a holder coming back queues on it behind the waiter.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import fcntl
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

MAGIC = b"hale-record-journal 2 "
HEAD = 128  # the header's fixed room; frames follow
SIZE = 2 << 20  # the file's size, zero-filled when made; a batch past it grows the file
SETTLE_BYTES = 1 << 20  # settle once the frames reach this far
_FRAME = struct.Struct("<III")  # length, generation, CRC-32 of the generation and payload


def _syncfs_function():
    libc = ctypes.util.find_library("c")
    function = getattr(ctypes.CDLL(libc, use_errno=True), "syncfs", None) if libc else None
    if function is not None:
        function.argtypes = [ctypes.c_int]
    return function


_syncfs = _syncfs_function()


def flush_file_system(fd: int) -> None:
    """Make everything written on the file system of `fd` durable."""
    if _syncfs is None or _syncfs(fd) != 0:
        os.sync()  # no syncfs here: flush every file system


def _crc(generation: int, payload: bytes) -> int:
    return zlib.crc32(payload, zlib.crc32(generation.to_bytes(4, "little")))


class Journal:
    """The journal of one clone."""

    def __init__(self, folder: Path):
        self.path = folder / "record.journal"
        self._fd: int | None = None
        self._gate: int | None = None
        self._depth = 0  # re-entrant lock depth
        self.generation = 0
        self.end = HEAD  # where the next frame goes (found again under the lock)
        self.wrote = False  # this process has frames waiting to be settled

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            self._fd = fd
        return self._fd

    def _take(self, fd: int) -> None:
        """Lock the journal, waiting at the gate (see the module's comment)."""
        if self._gate is None:
            self._gate = os.open(f"{self.path}.gate", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self._find_end(fd)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        fd = self._open()
        if self._depth == 0:
            self._take(fd)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                fcntl.flock(fd, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        """The lock given up while inside, however deep it is held, and held again after."""
        depth, fd = self._depth, self._fd
        if depth == 0 or fd is None:
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_UN)
        self._depth = 0
        try:
            yield
        finally:
            assert self._depth == 0
            self._take(fd)
            self._depth = depth

    def let_others_in(self) -> None:
        """Give the lock up while holding it, and hold it again once a writer that
        was waiting for it has had its turn (the gate queues us behind it)."""
        assert self._depth > 0
        with self.released():
            pass

    def _find_end(self, fd: int) -> None:
        """Read the header (making the file when it is new) and walk to the last frame."""
        head = os.pread(fd, HEAD, 0)
        if not head.startswith(MAGIC):
            self._make(fd)
            return
        generation = int(head[len(MAGIC) :].split(b" ", 1)[0])
        if generation != self.generation:
            self.generation, self.end = generation, HEAD
        while True:
            frame = os.pread(fd, _FRAME.size, self.end)
            if len(frame) < _FRAME.size:
                return
            size, gen, crc = _FRAME.unpack(frame)
            if gen != generation or size == 0:
                return
            payload = os.pread(fd, size, self.end + _FRAME.size)
            if len(payload) < size or _crc(gen, payload) != crc:
                return
            self.end += _FRAME.size + size

    def _make(self, fd: int) -> None:
        """A new journal: zeros to its size, then the header of generation 1, all flushed."""
        os.ftruncate(fd, 0)
        os.pwrite(fd, bytes(SIZE), 0)
        self.generation, self.end = 1, HEAD
        os.pwrite(fd, self._header(None), 0)
        os.fsync(fd)
        fd_dir = os.open(self.path.parent, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd_dir)
        finally:
            os.close(fd_dir)

    def _header(self, tip: str | None) -> bytes:
        text = MAGIC + b"%d %s\n" % (self.generation, (tip or "-").encode())
        return text.ljust(HEAD, b"\0")

    def write(self, text: str) -> None:
        """Write one batch as a frame and fdatasync it (call with the lock held)."""
        fd = self._open()
        payload = text.encode()
        frame = _FRAME.pack(len(payload), self.generation, _crc(self.generation, payload))
        os.pwrite(fd, frame + payload, self.end)
        os.fdatasync(fd)
        self.end += len(frame) + len(payload)
        self.wrote = True

    def full(self) -> bool:
        return self.end >= SETTLE_BYTES

    def read(self) -> tuple[str | None, list[str]]:
        """(the settled tip's hex or None, the text of every frame of this generation)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None, []
        if not data.startswith(MAGIC):
            return None, []
        words = data[len(MAGIC) : data.index(b"\n")].split(b" ")
        generation, tip = int(words[0]), words[1].decode()
        texts, at = [], HEAD
        while at + _FRAME.size <= len(data):
            size, gen, crc = _FRAME.unpack_from(data, at)
            payload = data[at + _FRAME.size : at + _FRAME.size + size]
            if gen != generation or size == 0 or len(payload) < size:
                break
            if _crc(gen, payload) != crc:
                break
            texts.append(payload.decode())
            at += _FRAME.size + size
        return (None if tip == "-" else tip), texts

    def settle(self, tip: str | None) -> None:
        """Flush the file system, then start the next generation under `tip` (call locked)."""
        fd = self._open()
        flush_file_system(fd)
        self.generation += 1
        self.end = HEAD
        os.pwrite(fd, self._header(tip), 0)
        os.fdatasync(fd)
        self.wrote = False

    def close(self) -> None:
        for fd in (self._fd, self._gate):
            if fd is not None:
                os.close(fd)
        self._fd = self._gate = None
