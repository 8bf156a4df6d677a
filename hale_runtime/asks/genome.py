"""What the organization's genome says about asks: whether the Leader plans,
the Leader's brief, and the one budget policy.

Each value is one call into the genome's own Hale (`organization()` in
dna/org/main.hl, `charter()`, `purpose()`, `org_budget()` in models.hl),
built once when the organization loads. A file that is missing, does not
build or returns something else leaves the default standing: no Leader
(nothing is planned), an empty brief line, an unmetered budget; but a
budget whose window or allowance the budget cannot keep is refused
(BudgetRefused), never taken for an unmetered one. The law is
the organization's positions and the ask definitions the catalog binds; the
practices ratified for `org` are the record's (record/practices.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hale_runtime.engine import BudgetPolicy

ASK_DEFINITIONS = ("ask-edit", "ask-person", "ask-judge", "ask-position")


@dataclass(frozen=True)
class OrgGenome:
    planned: bool = False
    positions: tuple[tuple[str, str], ...] = ()  # (name, holder)
    charter: str = ""
    purpose: str = ""
    budget: BudgetPolicy = field(default_factory=BudgetPolicy)

    @property
    def leader(self) -> bool:
        """Whether a Leader reads every ask: planned, and a leader position is held."""
        return self.planned and any(n == "leader" and h for n, h in self.positions)


def call_genome(root: Path, entry: str, fn: str) -> Any:
    """`fn()` of the genome file `entry`, or None when it is absent or fails."""
    if not (Path(root) / entry).is_file():
        return None
    from hale_lang.build import build
    from hale_lang.diagnostics import HaleError

    try:
        return build(Path(root), [entry]).call(entry, fn)
    except (HaleError, KeyError, AttributeError, TypeError):
        return None


def read_genome(root: Path) -> OrgGenome:
    """The organization as `root`'s genome declares it."""
    org = call_genome(root, "dna/org/main.hl", "organization")
    planned = bool(getattr(org, "f_planned", False))
    held = getattr(org, "f_positions", None) or []
    positions = tuple((str(p.f_name), str(p.f_holder)) for p in held)
    charter = call_genome(root, "dna/org/charter.hl", "charter")
    purpose = call_genome(root, "dna/org/purpose.hl", "purpose")
    budget = _budget(Path(root))
    return OrgGenome(
        planned,
        positions,
        charter if isinstance(charter, str) else "",
        purpose if isinstance(purpose, str) else "",
        budget,
    )


def _budget(root: Path) -> BudgetPolicy:
    from hale_lang.diagnostics import HaleError
    from hale_runtime.engine.budget import MODELS, policy_from_genome

    if not (root / MODELS).is_file():
        return BudgetPolicy()
    try:
        return policy_from_genome(root)  # BudgetRefused goes on up
    except (HaleError, KeyError, AttributeError, TypeError):
        return BudgetPolicy()


def law(genome: OrgGenome, catalog: Any) -> list[str]:
    """The law as the genome holds it: its positions and the ask definitions."""
    lines = [f"position {n}: held by {h or 'nobody'}" for n, h in genome.positions]
    for name in ASK_DEFINITIONS:
        d = catalog.newest(name) if catalog is not None else None
        if d is not None:
            lines.append(f"{d.id}@{d.rev}: {d.summary}")
    return lines
