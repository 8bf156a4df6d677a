"""The sealed catalog: definitions by id and revision, bound whole on demand.

`seal` runs once a genome's `workflows` has returned. It walks every
definition depth-first (post-order), resolving each child to the newest
revision of what it names, refusing a tree that recurses (every definition on
the cycle, at its own `child` call), names a definition that does not exist,
has a step with no member, or passes the depth or unit limits; a definition
whose child was refused is refused too. Survivors get their admission verdict
(rules.admission), children first.

`Catalog.bind(id, rev=None)` is what admission calls: the newest revision for
new work, an older one when named; a `Bound` tree, or `Refused` with the
reason. Older revisions stay resolvable after a newer one supersedes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hale_runtime import errors
from hale_runtime.catalog import rules
from hale_runtime.catalog.model import (
    MAX_DEPTH,
    MAX_UNITS,
    Child,
    Definition,
    Leaf,
    Refusal,
)

# An admission the catalog refuses is the runtime's one Refused (its `reason`
# the one-line why): the engine catches it without importing the catalog above it.
Refused = errors.Refused


@dataclass(frozen=True)
class Bound:
    """A definition bound whole: its children bound too, its inputs given."""

    definition: Definition
    children: dict[tuple[int, str], Bound]  # (step, member key) -> the child's tree
    inputs: dict[str, str] = field(default_factory=dict)

    def child(self, step: int, key: str) -> Bound:
        return self.children[(step, key)]

    def objective(self, leaf: Leaf) -> str:
        """The leaf's objective with `{input}` replaced by the inputs given."""
        text = leaf.objective
        for name, value in self.inputs.items():
            text = text.replace("{" + name + "}", value)
        return text


@dataclass
class Catalog:
    entry: str  # the genome file the catalog came from
    definitions: dict[tuple[str, int], Definition]  # in definition order
    refusals: list[Refusal]  # every call the catalog refused, in order
    failed: str = ""  # what `workflows` returned, when it was not ""

    def revisions(self, id: str) -> list[int]:
        return sorted(rev for (i, rev) in self.definitions if i == id)

    def newest(self, id: str) -> Definition | None:
        revs = self.revisions(id)
        return self.definitions[(id, revs[-1])] if revs else None

    def resolve(self, id: str, rev: int | None = None) -> Definition:
        """The definition admission would bind, or Refused."""
        if rev is None:
            d = self.newest(id)
            if d is None:
                raise Refused(self._unknown(id))
            return d
        d = self.definitions.get((id, rev))
        if d is None:
            revs = self.revisions(id)
            if not revs:
                raise Refused(self._unknown(id))
            have = ", ".join(str(r) for r in revs)
            raise Refused(f"workflow {id} has no revision {rev} (it has {have})")
        return d

    def bind(self, id: str, rev: int | None = None, inputs: dict[str, str] | None = None) -> Bound:
        """Bind a definition whole for admission: Bound, or raise Refused."""
        d = self.resolve(id, rev)
        if d.admission:
            raise Refused(d.admission)
        if inputs is not None:
            missing = [n for n in d.inputs if n not in inputs]
            if missing:
                raise Refused(f"workflow {d.name} takes {', '.join(missing)}, which the ask lacks")
        return self._bound(d, inputs or {})

    def _bound(self, d: Definition, inputs: dict[str, str]) -> Bound:
        kids = {k: self._bound(self.definitions[v], inputs) for k, v in d.children.items()}
        return Bound(d, kids, dict(inputs))

    def _unknown(self, id: str) -> str:
        for r in self.refusals:
            if r.definition.partition("@")[0] == id:
                return f"workflow {id} was refused by the catalog at {r.at}: {r.reason}"
        return f"no workflow {id} in the catalog"


def seal(entry: str, defined: list[Definition], refusals: list[Refusal]) -> Catalog:
    sealer = _Sealer({d.name: d for d in defined}, refusals)
    for d in defined:
        sealer.visit(d, [], [])
    kept = {(d.id, d.rev): d for d in defined if d.name not in sealer.refused}
    return Catalog(entry, kept, refusals)


class _Sealer:
    def __init__(self, by_name: dict[str, Definition], refusals: list[Refusal]):
        self.by_name = by_name
        self.refusals = refusals
        self.refused: set[str] = set()
        self.done: set[str] = set()

    def newest(self, definition: str) -> Definition | None:
        id, _, rev = definition.partition("@")
        if rev:
            return self.by_name.get(definition)
        revs = [d for d in self.by_name.values() if d.id == id]
        return max(revs, key=lambda d: d.rev) if revs else None

    def refuse(self, d: Definition, at: str, reason: str, call: str = "child") -> None:
        if d.name not in self.refused:
            self.refused.add(d.name)
            self.refusals.append(Refusal(call, at, d.name, reason))

    def visit(self, d: Definition, stack: list[Definition], via: list[Child]) -> None:
        if d.name in self.done:
            return
        stack.append(d)
        self._children(d, stack, via)
        stack.pop()
        self.done.add(d.name)
        if d.name not in self.refused:
            self._measure(d)

    def _children(self, d: Definition, stack: list[Definition], via: list[Child]) -> None:
        for step in d.steps:
            if not step.members:
                return self.refuse(
                    d, d.at, f"step {step.index} ({step.store}) has no member", "define"
                )
            for m in step.members:
                if isinstance(m, Child) and not self._child(d, step.index, m, stack, via):
                    return

    def _child(self, d: Definition, step: int, m: Child, stack, via) -> bool:
        target = self.newest(m.definition)
        if target is None:
            self.refuse(
                d,
                m.at,
                f"step {step} child `{m.key}` names workflow `{m.definition}`, which is not in the catalog",
            )
            return False
        if target in stack:
            self._cycle(stack[stack.index(target) :], [*via[stack.index(target) :], m])
            return False
        via.append(m)
        self.visit(target, stack, via)
        via.pop()
        if target.name in self.refused:
            self.refuse(
                d,
                m.at,
                f"step {step} child `{m.key}` runs {target.name}, which the catalog refused",
            )
            return False
        d.children[(step, m.key)] = (target.id, target.rev)
        return True

    def _cycle(self, cycle: list[Definition], edges: list[Child]) -> None:
        """Refuse every definition on a cycle, each at its own child call."""
        for i, d in enumerate(cycle):
            loop = [*cycle[i:], *cycle[:i], d]
            path = " → ".join(x.name for x in loop)
            self.refuse(d, edges[i].at, f"child `{edges[i].key}` would recurse: {path}")

    def _measure(self, d: Definition) -> None:
        depth, units, kids = 1, 0, {}
        for step in d.steps:
            for m in step.members:
                if isinstance(m, Leaf):
                    units += 1
                    continue
                child = self.by_name["{}@{}".format(*d.children[(step.index, m.key)])]
                depth, units = max(depth, child.depth + 1), units + child.units
                kids[f"{step.index}/{m.key}"] = child
        d.depth, d.units = depth, units
        if depth > MAX_DEPTH:
            return self.refuse(
                d, d.at, f"its tree is {depth} deep, past the limit of {MAX_DEPTH}", "define"
            )
        if units > MAX_UNITS:
            return self.refuse(
                d,
                d.at,
                f"its tree has {units} units of work, past the limit of {MAX_UNITS}",
                "define",
            )
        d.admission = rules.admission(d, kids)
