"""Helpers for the spine's tests: the seed's close-month in a project made by
`hale dna new`, pushed to a bare forge so any clone can join, and the rows
the tests read back."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from node_helpers import Node, children_of, hale, sh, wait_for

from hale_runtime.record import Record

CLOSE_MONTH = """import "vendor/dna" as dna;

fn own_workflows(catalog: dna::WorkflowCatalog) -> String {
    let d = catalog.define("close-month", 1, "record record", "close the month");
    if len(d) > 0 { return d; }
    let a = catalog.leaf("close-month", 1, 0, "reconcile", dna::WorkRequest { objective: "reconcile the bank feed", requires: "analysis" }, 2);
    if len(a) > 0 { return a; }
    let b = catalog.leaf("close-month", 1, 1, "post", dna::WorkRequest { objective: "post the journal entries", requires: "human" }, 1);
    if len(b) > 0 { return b; }
    return catalog.occurs("close-month", 1, "skip", "period");
}
"""


def make_forge(tmp: Path) -> Path:
    """A bare forge holding a new project with close-month, its record pushed too."""
    forge, src = tmp / "forge.git", tmp / "src"
    sh(tmp, "git", "init", "-q", "--bare", "--initial-branch=main", str(forge))
    made = hale(tmp, "dna", "new", str(src))
    assert made.returncode == 0, made.stderr
    (src / "dna" / "org" / "own_workflows.hl").write_text(CLOSE_MONTH)
    sh(src, "git", "branch", "-M", "main")
    sh(src, "git", "add", "dna")
    sh(src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "close-month")
    sh(src, "git", "remote", "add", "origin", str(forge))
    sh(src, "git", "push", "-q", "origin", "main")
    Record.open(src).sync()
    return forge


def lines(root: Path) -> list[str]:
    """`kind key` of the rows this clone holds (a node's clone: it syncs it)."""
    return [f"{r.kind} {r.key}" for r in Record.open(root).rows()]


def rows(root: Path, kind: str, key: str | None = None, sync: bool = False) -> list:
    """The `kind` rows (under `key`) this clone holds; `sync` first on a clone
    no node runs in (a node syncs its own, holding the clone's sync lock)."""
    record = Record.open(root)
    if sync:
        record.sync()
    return record.rows(kind=kind, key=key)


def wait_row(root: Path, kind: str, key: str | None = None, timeout: float = 60,
             sync: bool = False):  # fmt: skip
    """The first `kind` row (under `key`) once this clone holds one."""
    found = wait_for(lambda: rows(root, kind, key, sync), timeout, f"{kind} {key or ''}")
    return found[0]


def declare_monthly(root: Path, every_ms: int = 1000) -> None:
    done = hale(root, "dna", "schedule", "declare", "monthly", "--every", str(every_ms),
                "--definition", "close-month", "--convener", "leader",
                "--args", '{"period": "2025-11"}')  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout


def stop_all(started: list[Node]) -> None:
    """Kill every node a test started, with every process it started."""
    for node in started:
        pids = children_of(node.proc.pid).values()
        node.kill()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
