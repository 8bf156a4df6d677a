"""The genome layout `hale dna new` writes and `hale dna upgrade` refreshes.

The toolchain's `vendor/dna` is the source of both: its `templates/` folder
mirrors the files a new project starts with (`dna/org/main.hl`, …), and every
other file under it is vendored into the project as `vendor/dna/…`.
`upgrade_plan` compares a project with the toolchain's current shape, file by
file, for the files upgrade owns (`dna/org/workflows.hl` and `vendor/dna/`);
`dna/org/own_workflows.hl` and the rest of the genome are never among them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hale_runtime import errors
from hale_runtime.toolchain import vendor_dna

TEMPLATES = "templates"
WORKFLOWS = "dna/org/workflows.hl"
OWN_WORKFLOWS = "dna/org/own_workflows.hl"
# Every file a project cannot work without: an install missing one is broken,
# and `hale dna new` refuses rather than write a genome that cannot run.
REQUIRED = (
    "dna/org/main.hl",
    WORKFLOWS,
    OWN_WORKFLOWS,
    "dna/org/models.hl",
    "dna/org/charter.hl",
    "dna/org/purpose.hl",
    "dna/core/scheduler.hl",
    "dna/compose.yaml",
    "vendor/dna/mod.hl",
    "vendor/dna/baseline.hl",
)


class ToolchainIncomplete(errors.Failed):
    """This install of hale lacks files of its own `vendor/dna`."""


def vendored() -> dict[str, bytes]:
    """The `vendor/dna` files a project holds, by path from its root."""
    base = vendor_dna()
    out: dict[str, bytes] = {}
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base)
        if path.is_file() and rel.parts[0] != TEMPLATES and "__pycache__" not in rel.parts:
            out[f"vendor/dna/{rel.as_posix()}"] = path.read_bytes()
    return out


def templates() -> dict[str, bytes]:
    """The genome files a new project starts with, by path from its root."""
    base = vendor_dna() / TEMPLATES
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file()
    }


def layout() -> dict[str, bytes]:
    """Every file `hale dna new` writes; refuses an install that lacks one it needs."""
    files = {**templates(), **vendored()}
    missing = [rel for rel in REQUIRED if rel not in files]
    if missing:
        raise ToolchainIncomplete(
            f"this install of hale lacks {', '.join(missing)} (under {vendor_dna()}); "
            "reinstall hale"
        )
    return files


def existing_genome(folder: Path) -> str | None:
    """What of a genome is already in `folder` (a path), or None."""
    for rel in ("dna", "vendor/dna"):
        if (folder / rel).exists():
            return rel
    return None


@dataclass
class Change:
    verb: str  # "added", "updated", "removed"
    path: str


def upgrade_plan(root: Path) -> list[Change]:
    """What `hale dna upgrade` would change, in path order."""
    want = {WORKFLOWS: templates()[WORKFLOWS], **vendored()}
    have = {
        p.relative_to(root).as_posix()
        for p in (root / "vendor" / "dna").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    changes: list[Change] = []
    for rel in sorted(set(want) | have):
        file = root / rel
        if rel not in want:
            changes.append(Change("removed", rel))
        elif not file.is_file():
            changes.append(Change("added", rel))
        elif file.read_bytes() != want[rel]:
            changes.append(Change("updated", rel))
    return changes


def apply_plan(root: Path, changes: list[Change]) -> None:
    want = {WORKFLOWS: templates()[WORKFLOWS], **vendored()}
    for c in changes:
        assert c.path != OWN_WORKFLOWS, "upgrade never touches own_workflows.hl"
        file = root / c.path
        if c.verb == "removed":
            file.unlink()
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(want[c.path])
