"""The definition model: stores, limits, and a definition's steps and members.

A definition is data: ordered steps, each writing one store, each holding
members that are leaves (one unit of work) or children (another definition,
run as its own execution). These classes hold what the genome declared and
where (`at`: the `.hl` call, `path:line:col`); the rules in `rules.py` decide
what binds, and `catalog.py` resolves children into bound trees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# every store a step may write, in the seed's order
STORES = ("record", "forge", "genome", "heart", "graph", "nerves", "memory", "vault", "host")

# the parts the organization cannot write yet, and why (after "writes the <store>")
UNWRITABLE = {
    "heart": "writes the heart (GH #987), which is not built yet",
    "vault": "writes the vault, which is not built yet",
    "host": "writes a host, which a person provisions with `hale dna body provision`",
}

# the steps the organization performs itself (a leaf that requires `organism`)
ORGANISM_STEPS = frozenset(
    {
        "ratify", "hat", "raise", "walk", "classify", "plan",
        "review", "verdict", "apply", "deploy", "settle",
        "rotate", "recorded", "provision", "start", "lease", "observed",
    }
)  # fmt: skip

MAX_DEPTH = 8
MAX_STEPS = 32
MAX_MEMBERS = 32
MAX_ATTEMPTS = 8
MAX_UNITS = 256

KEY = re.compile(r"[a-z0-9-]+")
INPUT = re.compile(r"[a-z][a-z0-9_]*")
MODES = ("skip", "overlap")


@dataclass
class Leaf:
    key: str
    objective: str
    requires: tuple[str, ...]
    attempts: int
    at: str


@dataclass
class Child:
    key: str
    definition: str  # "id" (its newest revision) or "id@rev"
    at: str


Member = Leaf | Child


@dataclass
class Step:
    index: int
    store: str
    members: list[Member] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The step's name as printed: its member keys."""
        return ", ".join(m.key for m in self.members) or "-"


@dataclass
class Occurs:
    mode: str  # "skip" or "overlap"
    inputs: tuple[str, ...]


@dataclass
class Definition:
    id: str
    rev: int
    summary: str
    steps: list[Step]
    at: str  # the `define` call
    origin: str  # "baseline" (vendor/) or "own"
    occurs: Occurs | None = None
    # filled when the catalog is sealed
    admission: str | None = None  # why an admission would refuse it, or None
    children: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)
    depth: int = 1
    units: int = 0

    @property
    def name(self) -> str:
        return f"{self.id}@{self.rev}"

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.occurs.inputs if self.occurs else ()

    @property
    def mode(self) -> str:
        return self.occurs.mode if self.occurs else "skip"


@dataclass(frozen=True)
class Refusal:
    """A call the catalog refused: which call, where, for what definition, why."""

    call: str  # define, leaf, child, occurs, or "catalog" for a whole-tree rule
    at: str
    definition: str  # "id@rev"
    reason: str

    def line(self) -> str:
        return f"{self.at}: refused {self.definition}: {self.reason}"
