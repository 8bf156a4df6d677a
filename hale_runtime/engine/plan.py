"""A plan: a bound definition frozen as plain data, carried in `workflow.admitted`.

The engine runs an execution from the plan written at its admission, never
from the catalog again, so a task born under a revision finishes under it
whatever revisions appear later, and a restart needs no genome to rebuild.
A plan is the definition's id, revision and summary and its steps; each
step names its store and its members: a leaf (objective with the inputs
filled in, requires words, attempts) or a child (the child's own plan).

`plan_of` accepts the catalog's `Bound`, or anything shaped like it (see
`BoundLike`), so tests and tools can build definitions in Python;
`check_inputs` says why the inputs an ask gives do not fit the definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class DefinitionLike(Protocol):
    id: str
    rev: int
    summary: str
    steps: list[Any]  # each: .index, .store, .members (leaves: .key .objective .requires .attempts)
    inputs: tuple[str, ...]


class BoundLike(Protocol):
    definition: DefinitionLike
    inputs: dict[str, str]

    def child(self, step: int, key: str) -> BoundLike: ...

    def objective(self, leaf: Any) -> str: ...


@dataclass(frozen=True, slots=True)
class LeafPlan:
    key: str
    objective: str
    requires: tuple[str, ...]
    attempts: int


@dataclass(frozen=True, slots=True)
class ChildPlan:
    key: str
    plan: Plan


@dataclass(frozen=True, slots=True)
class StepPlan:
    store: str
    members: tuple[LeafPlan | ChildPlan, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    id: str
    rev: int
    summary: str
    steps: tuple[StepPlan, ...]

    @property
    def name(self) -> str:
        return f"{self.id}@{self.rev}"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rev": self.rev,
            "summary": self.summary,
            "steps": [
                {"store": s.store, "members": [_member_json(m) for m in s.members]}
                for s in self.steps
            ],
        }


def _member_json(m: LeafPlan | ChildPlan) -> dict[str, Any]:
    if isinstance(m, ChildPlan):
        return {"key": m.key, "child": m.plan.as_json()}
    return {
        "key": m.key,
        "objective": m.objective,
        "requires": list(m.requires),
        "attempts": m.attempts,
    }


def plan_from_json(doc: dict[str, Any]) -> Plan:
    steps = tuple(
        StepPlan(s["store"], tuple(_member_from_json(m) for m in s["members"]))
        for s in doc["steps"]
    )
    return Plan(doc["id"], doc["rev"], doc["summary"], steps)


def _member_from_json(m: dict[str, Any]) -> LeafPlan | ChildPlan:
    if "child" in m:
        return ChildPlan(m["key"], plan_from_json(m["child"]))
    return LeafPlan(m["key"], m["objective"], tuple(m["requires"]), m["attempts"])


def plan_of(bound: BoundLike) -> Plan:
    """The plan of a bound definition (children planned with it, inputs filled in)."""
    d = bound.definition
    steps = []
    for step in d.steps:
        members: list[LeafPlan | ChildPlan] = []
        for m in step.members:
            if hasattr(m, "objective"):
                requires = tuple(m.requires) if not isinstance(m.requires, str) else (m.requires,)
                members.append(LeafPlan(m.key, bound.objective(m), requires, m.attempts))
            else:
                members.append(ChildPlan(m.key, plan_of(bound.child(step.index, m.key))))
        steps.append(StepPlan(step.store, tuple(members)))
    return Plan(d.id, d.rev, d.summary, tuple(steps))


def check_inputs(definition: BoundLike | Plan, inputs: dict[str, str] | None) -> str:
    """Why `inputs` do not fit what the definition takes, or ""."""
    if isinstance(definition, Plan):
        return ""
    d = definition.definition
    takes = tuple(getattr(d, "inputs", ()) or ())
    given = inputs or {}
    missing = [n for n in takes if n not in given]
    extra = sorted(n for n in given if n not in takes)
    name = f"{d.id}@{d.rev}"
    if missing:
        return f"workflow {name} takes {', '.join(missing)}, which the ask lacks"
    if extra:
        return f"workflow {name} takes no input {', '.join(extra)}"
    return ""
