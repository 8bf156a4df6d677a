"""Finding the project a verb runs in.

A project is a git repository holding a genome: `dna/org/main.hl`. Verbs may
run from any folder inside it, so the root is found by walking upward.
"""

from __future__ import annotations

from pathlib import Path

from hale_runtime.errors import Refused

GENOME_MARKER = Path("dna/org/main.hl")


class NotAProject(Refused):
    """The folder is not inside a hale project."""

    def __init__(self, start: Path):
        self.start = start
        super().__init__(
            f"{start} is not inside a hale project (no {GENOME_MARKER} above it); "
            "make one with `hale dna new`"
        )


def find_root(start: Path | str | None = None) -> Path:
    """The nearest folder at or above `start` that holds a genome."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / GENOME_MARKER).is_file():
            return folder
    raise NotAProject(here)
