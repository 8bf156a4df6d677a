"""Helpers for the spine's tests: the seed's close-month in a project made by
`hale dna new`, pushed to a bare forge so any clone can join, and the rows
the tests read back."""

from __future__ import annotations

from pathlib import Path

from catalog_helpers import CLOSE_MONTH, own_source
from node_helpers import hale, make_dna_forge, sh, wait_for

from hale_runtime.record import Record


def forge_with_close_month(tmp: Path) -> Path:
    """A bare forge holding a new project and its record, close-month added."""
    forge, src = make_dna_forge(tmp)
    (src / "dna" / "org" / "own_workflows.hl").write_text(own_source(CLOSE_MONTH))
    sh(src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "close-month")
    sh(src, "git", "push", "-q", "origin", "main")
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
