"""The `WorkflowCatalog` host binding: what `catalog.define(…)` does in Hale.

The genome's `workflows(catalog)` calls these methods; each checks the call
against the definition so far (rules.py), records it with its Hale call site,
and returns "" or the refusal. A refused definition is dropped whole: later
calls on it return the same refusal and are not recorded again. When the
genome returns, `seal()` applies the whole-tree rules and yields the Catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hale_runtime.catalog import rules
from hale_runtime.catalog.callsite import call_site
from hale_runtime.catalog.model import Child, Definition, Leaf, Occurs, Refusal, Step

if TYPE_CHECKING:
    from hale_runtime.catalog.catalog import Catalog


class WorkflowCatalog:
    """The host object handed to `workflows(catalog)`; one per genome load."""

    def __init__(self) -> None:
        self.defined: dict[tuple[str, int], Definition] = {}
        self.refusals: list[Refusal] = []
        self._refused: dict[tuple[str, int], str] = {}  # id, rev -> the reason given

    # ---- the host methods (Hale: catalog.define(...), …) ----------------------

    def define(self, id: str, rev: int, stores: str, summary: str) -> str:
        at = call_site()
        key = (id, rev)
        reason = rules.check_id(id, rev)
        if not reason and (key in self.defined or key in self._refused):
            reason = f"{id}@{rev} is already defined; a change is its next revision"
        words: list[str] = []
        if not reason:
            words, reason = rules.parse_stores(stores)
        if not reason and summary.strip() == "":
            reason = "a definition says what it is in its summary, and this one's is empty"
        if reason:
            return self._refuse("define", at, key, reason, keep=key not in self.defined)
        origin = "baseline" if at.startswith("vendor/") else "own"
        steps = [Step(i, w) for i, w in enumerate(words)]
        self.defined[key] = Definition(id, rev, summary, steps, at, origin)
        return ""

    def leaf(self, id: str, rev: int, step: int, key: str, work: object, attempts: int) -> str:
        at = call_site()
        d, refusal = self._target((id, rev), "leaf", at)
        if d is None:
            return refusal
        objective, requires = _work_fields(work)
        words = tuple(requires.split())
        reason = rules.check_member(d, step, key) or rules.check_leaf(objective, words, attempts)
        if reason:
            return self._refuse("leaf", at, (id, rev), reason)
        d.steps[step].members.append(Leaf(key, objective, words, attempts, at))
        return ""

    def child(self, id: str, rev: int, step: int, key: str, definition: str) -> str:
        at = call_site()
        d, refusal = self._target((id, rev), "child", at)
        if d is None:
            return refusal
        reason = rules.check_member(d, step, key) or rules.parse_child(d, definition)
        if reason:
            return self._refuse("child", at, (id, rev), reason)
        d.steps[step].members.append(Child(key, definition, at))
        return ""

    def occurs(self, id: str, rev: int, mode: str, input: str) -> str:
        at = call_site()
        d, refusal = self._target((id, rev), "occurs", at)
        if d is None:
            return refusal
        inputs, reason = rules.parse_occurs(d, mode, input)
        if reason:
            return self._refuse("occurs", at, (id, rev), reason)
        d.occurs = Occurs(mode, inputs)
        return ""

    # ---- bookkeeping ------------------------------------------------------------

    def _target(self, key: tuple[str, int], call: str, at: str) -> tuple[Definition | None, str]:
        if key in self._refused:
            return None, self._refused[key]
        d = self.defined.get(key)
        if d is None:
            reason = f"{key[0]}@{key[1]} is not defined; define it before its members"
            return None, self._refuse(call, at, key, reason, keep=False)
        return d, ""

    def _refuse(
        self, call: str, at: str, key: tuple[str, int], reason: str, keep: bool = True
    ) -> str:
        """Record a refusal; `keep` drops the definition and remembers the reason."""
        refusal = Refusal(call, at, f"{key[0]}@{key[1]}", reason)
        self.refusals.append(refusal)
        text = f"refused {refusal.definition}: {reason}"
        if keep:
            self.defined.pop(key, None)
            self._refused[key] = text
        return text

    def seal(self, entry: str) -> Catalog:
        """The catalog these calls built, with the whole-tree rules applied."""
        from hale_runtime.catalog.catalog import seal

        return seal(entry, list(self.defined.values()), list(self.refusals))


def _work_fields(work: object) -> tuple[str, str]:
    """A `dna::WorkRequest` as (objective, requires), from a StructValue or a dict."""
    if isinstance(work, dict):
        return str(work.get("objective", "")), str(work.get("requires", ""))
    return str(getattr(work, "f_objective", "")), str(getattr(work, "f_requires", ""))
