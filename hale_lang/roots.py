"""Where a genome's root is, and which `.hl` files lie under a folder.

Imports resolve from the genome root and diagnostics name paths under it,
so every tool that starts from a file (`hale check`, `hale run`, the
language server) finds the root the same way: the nearest folder, from the
path upwards, that holds a `vendor/` folder, or else a `dna/` folder (a
folder named `vendor` never counts, so a file under `vendor/dna/` resolves
to the genome above it); failing both, the file's own folder.
"""

from __future__ import annotations

from pathlib import Path


def genome_root(path: Path) -> Path:
    """The genome root holding `path` (see the module docstring)."""
    start = path.resolve()
    folder = start if start.is_dir() else start.parent
    for d in (folder, *folder.parents):
        if (d / "vendor").is_dir():
            return d
    for d in (folder, *folder.parents):
        if (d / "dna").is_dir() and d.name != "vendor":
            return d
    return folder


def hl_files(path: Path) -> list[Path]:
    """`path` itself when it is a file, else every `.hl` file under it,
    sorted, skipping hidden files and folders."""
    if path.is_file():
        return [path]
    return sorted(
        p for p in path.rglob("*.hl") if not any(part.startswith(".") for part in p.parts)
    )
