"""Checkpoints: the organization's fold saved at a row, so a start folds only what follows.

The organization's state (the engine's, the Scheduler locus's, the intake's
and the Settler's folds) is a fold over the record. Every `EVERY_ROWS` rows,
or `EVERY_S` seconds when rows came, the organization asks each fold to
catch up to the record's tip and, when all stand at the same stamped row,
writes what each one's `snapshot()` says into one file:
`<seq>-<row id>-<version>.checkpoint`, a file in `<gitdir>/hale/checkpoints/`
or, for a PostgreSQL node, a row of memory's `checkpoints` table, which
every body of the record shares (`place_for`). The name
says the row it stands at (its place and id) and the version that made it:
a digest of the toolchain's version and of the source of every module
whose fold it holds, so changing any fold's code retires every checkpoint.
What a fold reads of the genome travels in its own part (the engine's
budget policy) and is checked by that fold; the genome's commit is not in
the name, because nothing else of the genome enters a fold.

A start loads the newest checkpoint that is whole (magic line, SHA-256 of
the payload), of this version, and whose row is still the row at its place
in this chain; each fold restores its part and folds the rows after it. A
checkpoint is only a cache: missing, damaged, of another version or of a
chain that moved, it is passed over with one line in the log and the folds
run from the start of the record. The payload is `marshal` data (plain
tuples, dicts, bytes): nothing in it is code. The newest `KEEP` files stay.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hale_runtime.record import Record

MAGIC = b"hale-checkpoint 1\n"
EVERY_ROWS = 10_000
EVERY_S = 300.0
KEEP = 2
SUFFIX = ".checkpoint"
FOLD_MODULES = (
    "hale_runtime.engine.state",
    "hale_runtime.engine.budget",
    "hale_runtime.engine.engine",
    "hale_runtime.schedules.state",
    "hale_runtime.schedules.locus",
    "hale_runtime.asks.intake",
    "hale_runtime.asks.settle",
    "hale_runtime.readings.concerns",
    "hale_runtime.seen",
    "hale_runtime.node.checkpoint",
)


class Fold(Protocol):
    """What the organization checkpoints: a fold with a cursor into the record."""

    cursor: int

    def catch_up(self) -> None: ...

    def snapshot(self) -> dict[str, Any]: ...


def version() -> str:
    """The toolchain's version and the source of every fold a checkpoint holds."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    digest = hashlib.sha256()
    try:
        digest.update(dist_version("hale").encode())
    except PackageNotFoundError:
        digest.update(b"unversioned")
    # each source found by its path under the package, since find_spec would import
    # every package on the way (the engine's, the schedules', …) before a node starts
    home = Path(__file__).resolve().parents[1]
    for name in FOLD_MODULES:
        source = home.joinpath(*name.split(".")[1:]).with_suffix(".py")
        try:
            digest.update(source.read_bytes())  # its source, read, not imported
        except OSError:
            raise RuntimeError(f"the fold module {name} is not installed") from None
    return digest.hexdigest()[:16]


@dataclass
class Checkpoint:
    seq: int  # the place of the row it stands at
    row: str  # that row's id
    parts: dict[str, Any] = field(default_factory=dict)

    def part(self, name: str) -> tuple[int, Any] | None:
        """(seq, the fold's snapshot) for a fold the checkpoint holds."""
        return (self.seq, self.parts[name]) if name in self.parts else None


class Files:
    """Checkpoints as files in the clone's cache, `<gitdir>/hale/checkpoints/`."""

    def __init__(self, gitdir: str | Path):
        self.folder = Path(gitdir) / "hale" / "checkpoints"

    def names(self) -> list[str]:
        """Newest (highest seq) first."""
        try:
            found = [p.name for p in self.folder.iterdir() if p.name.endswith(SUFFIX)]
        except OSError:
            return []
        return sorted(found, key=_seq_of, reverse=True)

    def read(self, name: str) -> bytes:
        return (self.folder / name).read_bytes()

    def write(self, name: str, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        aside = self.folder / f"{name}.{os.getpid()}.tmp"
        aside.write_bytes(data)
        os.replace(aside, self.folder / name)
        for old in self.names()[KEEP:]:
            with contextlib.suppress(OSError):
                (self.folder / old).unlink()

    def where(self) -> str:
        return str(self.folder)


class InMemory:
    """Checkpoints in memory's database (schema 2): a PostgreSQL node's, shared
    by every body of the record, so one that starts elsewhere resumes too."""

    def __init__(self, memory: Any):
        self.memory = memory

    def names(self) -> list[str]:
        return sorted(self.memory.checkpoint_names(), key=_seq_of, reverse=True)

    def read(self, name: str) -> bytes:
        data = self.memory.read_checkpoint(name)
        if data is None:
            raise OSError(f"{name} is no longer in memory")
        return data

    def write(self, name: str, data: bytes) -> None:
        self.memory.write_checkpoint(name, data, KEEP)

    def where(self) -> str:
        return "memory"


class Checkpoints:
    """The organization's checkpoints, in one place (Files or InMemory)."""

    def __init__(self, place: Files | InMemory, say: Callable[[str], None], made_by: str = ""):
        self.place = place
        self.say = say
        self.made_by = made_by

    @functools.cached_property
    def version(self) -> str:
        """This toolchain's version of the folds: read only when a checkpoint is read
        or written, so a start with none to read pays nothing for it."""
        return self.made_by or version()

    def load(self, record: Record) -> Checkpoint | None:
        """The newest usable checkpoint, or None; what was passed over is said in one line."""
        passed = ""
        for name in self.place.names():
            found, reason = self._read(name, record)
            if found is not None:
                if passed:
                    self.say(f"checkpoint: {passed}; starting from row {found.seq}")
                return found
            passed = passed or f"{name} passed over: {reason}"
        self.say(f"checkpoint: {passed or 'none written yet'}; folding the whole record")
        return None

    def _read(self, name: str, record: Record) -> tuple[Checkpoint | None, str]:
        parts = name.removesuffix(SUFFIX).split("-")
        if len(parts) != 3 or not parts[0].isdigit():
            return None, "not a checkpoint's name"
        seq, row, made_by = int(parts[0]), parts[1], parts[2]
        if made_by != self.version:
            return None, f"made by version {made_by}, this is {self.version}"
        try:
            data = self.place.read(name)
        except OSError as exc:
            return None, f"unreadable ({exc.strerror or exc})"
        payload = _payload(data)
        if payload is None:
            return None, "damaged (its checksum does not match)"
        try:
            body = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            return None, "damaged (not a checkpoint's data)"
        at = record.row_at(seq)
        if at is None or not at.id.startswith(row) or body.get("row") != at.id:
            return None, f"row {seq} is no longer the row it stood at"
        return Checkpoint(seq, at.id, dict(body.get("parts", {}))), ""

    def write(self, record: Record, seq: int, parts: dict[str, Any]) -> str | None:
        """Write a checkpoint at row `seq` (its name); older ones past KEEP go."""
        at = record.row_at(seq)
        if at is None:
            return None
        payload = marshal.dumps({"row": at.id, "parts": parts})
        data = MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        name = f"{seq:012d}-{at.id[:16]}-{self.version}{SUFFIX}"
        try:
            self.place.write(name, data)
        except OSError as exc:
            self.say(f"checkpoint: not written to {self.place.where()}: {exc}")
            return None
        return name


def place_for(memory: Any, memory_dsn: str, gitdir: str | Path) -> Files | InMemory:
    """Memory's table for a PostgreSQL node whose memory has it, else files."""
    from hale_runtime.memory.dsn import is_postgres
    from hale_runtime.memory.schema import CHECKPOINTS_SINCE

    if is_postgres(memory_dsn) and memory.schema_version() >= CHECKPOINTS_SINCE:
        return InMemory(memory)
    return Files(gitdir)


def _seq_of(name: str) -> int:
    head = name.split("-", 1)[0]
    return int(head) if head.isdigit() else -1


def _payload(data: bytes) -> bytes | None:
    """The payload of a whole file, or None when it is torn or altered."""
    if not data.startswith(MAGIC):
        return None
    rest = data[len(MAGIC) :]
    digest, _, payload = rest.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    return payload


class Checkpointer:
    """Writes the organization's checkpoints as its folds go (a ticker)."""

    def __init__(self, record: Record, store: Checkpoints, folds: dict[str, Fold],
                 every_rows: int = EVERY_ROWS, every_s: float = EVERY_S,
                 clock: Callable[[], float] = time.monotonic):  # fmt: skip
        self.record, self.store, self.folds = record, store, folds
        self.every_rows, self.every_s, self.clock = every_rows, every_s, clock
        self.last_seq = 0
        self.last_at = clock()

    def due(self, end: int) -> bool:
        if end <= self.last_seq:
            return False
        return end - self.last_seq >= self.every_rows or self.clock() - self.last_at >= self.every_s

    def tick(self) -> str | None:
        """Write a checkpoint when one is due and every fold stands at one stamped row."""
        end = self.record.cursor()
        if not self.folds or not self.due(end) or self.record.stamped_count() != end:
            return None
        for fold in self.folds.values():
            fold.catch_up()
            if fold.cursor != end:
                return None  # the record moved while they read: next tick
        parts = {name: fold.snapshot() for name, fold in self.folds.items()}
        written = self.store.write(self.record, end, parts)
        self.last_seq, self.last_at = end, self.clock()
        return written
