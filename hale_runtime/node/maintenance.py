"""Keeping the record's git store packed, a little at a time, off the tick's path.

Every append writes loose objects (a blob, a tree, a commit), and git never
packs what hale writes without `git gc`: a record of a few thousand rows
left thousands of loose files, twenty times the size of the same objects
packed. So the host looks at the store every `CHECK_S` (`git count-objects
-v`, one short process) and, when loose objects or packs pile up, starts the
maintenance in the background and goes on ticking:

  1. `git repack -d -q --geometric=2`: loose objects into one new pack, and
     packs merged only where a geometric progression of sizes breaks, so
     the work is proportional to what is new, not to the record's age;
  2. `git pack-refs --all`: the receipts' refs (one file each) into
     packed-refs.

Each later tick polls the process; one that outlives `MAX_S` is killed
(git leaves only temporary files that its next run removes). The run is
claimed in memory (`maintenance/record`), so over a shared memory one body
of the record runs it at a time, and the claim's token fences a second
starter in the same clone. What it did and when is written to
`<gitdir>/hale/maintenance.json`, which `hale dna status` reads.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHECK_S = 60.0
MAX_S = 300.0
LOOSE_AT = 1_000  # loose objects that make a run due
PACKS_AT = 16  # packs that make a run due
CLAIM = "maintenance/record"
STEPS = (
    ["repack", "-d", "-q", "--geometric=2"],
    ["pack-refs", "--all"],
)


@dataclass
class StoreSize:
    loose: int  # loose objects
    loose_bytes: int
    packs: int
    packed_bytes: int

    @property
    def total(self) -> int:
        return self.loose_bytes + self.packed_bytes


def store_size(gitdir: str | Path) -> StoreSize:
    """What `git count-objects -v` says of the store (sizes in bytes)."""
    done = subprocess.run(
        ["git", f"--git-dir={gitdir}", "count-objects", "-v"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    found = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    kib = 1024
    return StoreSize(
        int(found.get("count", 0)), int(found.get("size", 0)) * kib,
        int(found.get("packs", 0)), int(found.get("size-pack", 0)) * kib,
    )  # fmt: skip


def last_run(gitdir: str | Path) -> dict[str, Any] | None:
    """What the last maintenance did (`maintenance.json`), or None."""
    try:
        return json.loads((Path(gitdir) / "hale" / "maintenance.json").read_text())
    except (OSError, ValueError):
        return None


class Maintenance:
    """The host's maintenance of its clone's git store (call `tick` every tick)."""

    def __init__(self, gitdir: str | Path, memory: Any, holder: str,
                 say: Callable[[str], None] = print, clock: Callable[[], float] = time.monotonic,
                 check_s: float = CHECK_S, max_s: float = MAX_S):  # fmt: skip
        self.gitdir, self.memory, self.holder, self.say = Path(gitdir), memory, holder, say
        self.clock, self.check_s, self.max_s = clock, check_s, max_s
        self.next_check = clock() + check_s
        self.running: subprocess.Popen | None = None
        self.steps: list[list[str]] = []
        self.started = 0.0
        self.token = 0
        self.before: StoreSize | None = None

    def due(self) -> bool:
        size = store_size(self.gitdir)
        return size.loose >= LOOSE_AT or size.packs >= PACKS_AT

    def tick(self) -> str:
        """Start, poll or finish a run; what happened ("" when nothing did)."""
        if self.running is not None:
            return self._poll()
        if self.clock() < self.next_check:
            return ""
        self.next_check = self.clock() + self.check_s
        if not self.due():
            return ""
        return self.start()

    def start(self) -> str:
        """Take the claim and start the first step in the background."""
        grant = self.memory.take(CLAIM, self.holder, self.max_s + self.check_s)
        if grant is None:
            return "held elsewhere"
        self.token, self.started = grant.token, self.clock()
        self.before = store_size(self.gitdir)
        self.steps = [list(step) for step in STEPS]
        self._next()
        return "started"

    def _next(self) -> None:
        step = self.steps.pop(0)
        command = ["git", f"--git-dir={self.gitdir}", "-c", "gc.auto=0", *step]
        self.running = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )

    def _poll(self) -> str:
        assert self.running is not None
        code = self.running.poll()
        if code is None:
            if self.clock() - self.started <= self.max_s:
                return ""
            self.running.kill()
            self.running.wait()
            return self._finish(f"stopped after {self.max_s:.0f}s")
        if code != 0:
            why = (self.running.stderr.read() if self.running.stderr else "").strip()
            return self._finish(f"git failed: {why.splitlines()[-1] if why else code}")
        if self.steps:
            self._next()
            return ""
        return self._finish("")

    def _finish(self, trouble: str) -> str:
        proc, self.running = self.running, None
        if proc is not None and proc.stderr is not None:
            proc.stderr.close()
        self.memory.release(CLAIM, self.holder, self.token)
        after = store_size(self.gitdir)
        took = self.clock() - self.started
        if trouble:
            self.say(f"maintenance: {trouble}")
            return trouble
        note = {
            "at": int(time.time() * 1000), "took_s": round(took, 3),
            "before": vars(self.before) if self.before else None, "after": vars(after),
        }  # fmt: skip
        path = self.gitdir / "hale" / "maintenance.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(note, sort_keys=True))
        return "packed"

    def stop(self) -> None:
        """Stop a run still going (the node is stopping)."""
        if self.running is not None:
            self.running.kill()
            self.running.wait()
            self._finish("stopped with the node")
