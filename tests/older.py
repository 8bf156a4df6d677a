"""A project as a hale from before signed rows made it: the genome and the
seeded practices, and no genesis, so nothing in its record is judged."""

from __future__ import annotations

from pathlib import Path

from hale_runtime.record import Record


def old_project(path: Path, own_workflows: str | None = None) -> Path:
    """Write it at `path` (what `hale dna new` wrote before it registered a genesis)."""
    from hale_runtime.catalog.layout import layout
    from hale_runtime.cli.new import _first_commit
    from hale_runtime.record import seed_practices

    files = layout()
    if own_workflows is not None:
        files["dna/org/own_workflows.hl"] = own_workflows.encode()
    for rel, data in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_bytes(data)
    _first_commit(path, sorted(files))
    seed_practices(Record.open(path, sign=False))
    return path
