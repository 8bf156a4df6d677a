"""A project for a test: a fresh git repository with its clone id fixed and
either a genome marker (a folder the record finds) or the whole genome
`hale dna new` writes."""

from __future__ import annotations

from pathlib import Path

import pygit2


def make_project(path: Path, clone: str = "c0ffee00", new_genome: bool = False) -> Path:
    if new_genome:
        from hale_runtime.catalog.layout import layout

        for rel, data in layout().items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_bytes(data)
    else:
        (path / "dna" / "org").mkdir(parents=True)
        (path / "dna" / "org" / "main.hl").write_text("// the organization\n")
    repo = pygit2.init_repository(str(path))
    repo.config["hale.clone"] = clone
    return path
