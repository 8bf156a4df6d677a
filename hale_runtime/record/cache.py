"""A derived, disposable cache of decoded rows: `<gitdir>/hale/record.cache`.

Replaying a record from git costs a commit walk and a JSON decode per row;
this file keeps what was decoded so a cold reader loads it in one read. It is
a magic header and a sequence of frames, each a 4-byte length and a marshal
dump of `(commits, rows)`: `commits` are `(hex, parent hex or "", row count)`
in chain order, `rows` the decoded rows as plain tuples. Frames only append;
a file whose prefix no longer matches the chain is rewritten whole (written
aside, then renamed). A torn last frame (a writer killed mid-write) ends the
load there. Only settled commits (stamped ones) are written, so a sync's
rebase rarely invalidates it. Deleting it loses nothing but time.
"""

from __future__ import annotations

import contextlib
import fcntl
import marshal
import os
from collections.abc import Iterator
from pathlib import Path

from hale_runtime.record.row import Row

MAGIC = b"hale-record-cache 1\n"
Commit = tuple[str, str, int]  # (hex, parent hex or "", rows it holds)


class Cache:
    """The cache file of one clone; `commits`/`rows` mirror what this process wrote or read."""

    def __init__(self, gitdir: str | Path):
        folder = Path(gitdir) / "hale"
        self.path = folder / "record.cache"
        self.lock_path = folder / "record.cache.lock"
        self.enabled = True
        self.written = 0  # how many chain commits the file holds, as far as we know
        self._last = ""  # the hex of the last commit the file holds
        self._stat: tuple[int, int] | None = None

    def load(self) -> tuple[list[Commit], list[Row]]:
        """Every whole frame, checked to form one chain from the root."""
        commits: list[Commit] = []
        rows: list[Row] = []
        try:
            with self._locked(fcntl.LOCK_SH):
                data = self.path.read_bytes() if self.path.exists() else b""
                self._stat = self._file_stat()
        except OSError:
            self.enabled = False  # an unreadable cache is only a slower start
            return commits, rows
        if not data.startswith(MAGIC):
            return commits, rows
        view, offset = memoryview(data), len(MAGIC)
        while offset + 4 <= len(data):
            size = int.from_bytes(view[offset : offset + 4], "little")
            frame = _frame(view[offset + 4 : offset + 4 + size], size, commits, len(rows))
            if frame is None:
                break
            commits.extend(frame[0])
            rows.extend(map(Row._make, frame[1]))
            offset += 4 + size
        self.written, self._last = len(commits), commits[-1][0] if commits else ""
        return commits, rows

    def extend(self, commits: list[Commit], rows: list[Row], upto: int) -> None:
        """Make the file hold the first `upto` commits of this chain (and their rows)."""
        if not self.enabled or upto <= 0:
            return
        if upto == self.written and commits[upto - 1][0] == self._last:
            return  # the file already holds exactly this
        try:
            with self._locked(fcntl.LOCK_EX):
                same = self._stat is not None and self._file_stat() == self._stat
                if same and 0 < self.written <= upto and commits[self.written - 1][0] == self._last:
                    if upto > self.written:
                        self._append(commits, rows, self.written, upto)
                elif upto != self.written or not same:
                    self._rewrite(commits, rows, upto)
                self.written, self._last = upto, commits[upto - 1][0]
                self._stat = self._file_stat()
        except OSError:
            self.enabled = False  # a read-only .git: keep working from git alone

    def _append(self, commits: list[Commit], rows: list[Row], start: int, upto: int) -> None:
        with open(self.path, "ab") as out:
            out.write(_encode(commits, rows, start, upto))

    def _rewrite(self, commits: list[Commit], rows: list[Row], upto: int) -> None:
        aside = self.path.with_suffix(f".{os.getpid()}.tmp")
        aside.write_bytes(MAGIC + _encode(commits, rows, 0, upto))
        os.replace(aside, self.path)

    def _file_stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_size

    @contextlib.contextmanager
    def _locked(self, mode: int) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a") as lock:
            fcntl.flock(lock, mode)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _encode(commits: list[Commit], rows: list[Row], start: int, upto: int) -> bytes:
    first = sum(c[2] for c in commits[:start])
    count = sum(c[2] for c in commits[start:upto])
    body = marshal.dumps((commits[start:upto], [tuple(r) for r in rows[first : first + count]]))
    return len(body).to_bytes(4, "little") + body


def _frame(
    chunk: memoryview, size: int, before: list[Commit], nrows: int
) -> tuple[list[Commit], list[tuple]] | None:
    """One decoded frame, or None when it is torn or does not continue the chain."""
    if len(chunk) < size:
        return None
    try:
        frame_commits, frame_rows = marshal.loads(chunk)
    except (EOFError, ValueError, TypeError):
        return None
    parent = before[-1][0] if before else ""
    for hexid, parent_hex, _ in frame_commits:
        if parent_hex != parent:
            return None
        parent = hexid
    if sum(c[2] for c in frame_commits) != len(frame_rows):
        return None
    if frame_rows and frame_rows[0][7] != nrows + 1:
        return None
    return frame_commits, frame_rows
