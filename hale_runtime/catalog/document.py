"""The catalog's own document: what `hale dna definitions --json` prints.

A plain JSON object with stable, sorted keys, built from a sealed Catalog:
`catalog` (the genome file), `order` (every revision in catalog order),
`definitions` (by id: `newest` and each revision's summary, origin, steps
with their store and members, occurs, inputs, depth, units and `admission`,
the reason an admission would refuse it or null), `refusals` (each call the
catalog refused: call, `at` path:line:col, definition, reason), `returned`
(what the genome's `workflows` returned) and `stores` (which the
organization writes). The text listing is rendered from this document alone,
so a cached document is enough to print it.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.catalog.catalog import Catalog
from hale_runtime.catalog.model import STORES, UNWRITABLE, Child, Definition, Leaf, Step

VERSION = 1


def document(catalog: Catalog) -> dict[str, Any]:
    by_id: dict[str, list[Definition]] = {}
    for d in catalog.definitions.values():
        by_id.setdefault(d.id, []).append(d)
    return {
        "version": VERSION,
        "catalog": catalog.entry,
        "order": [d.name for d in catalog.definitions.values()],
        "definitions": [_definition(id, by_id[id]) for id in sorted(by_id)],
        "refusals": [
            {"at": r.at, "call": r.call, "definition": r.definition, "reason": r.reason}
            for r in catalog.refusals
        ],
        "returned": catalog.failed,
        "stores": [{"store": s, "writes": s not in UNWRITABLE} for s in STORES],
    }


def _definition(id: str, revisions: list[Definition]) -> dict[str, Any]:
    revisions = sorted(revisions, key=lambda d: d.rev)
    return {
        "id": id,
        "newest": revisions[-1].rev,
        "revisions": [_revision(d) for d in revisions],
    }


def _revision(d: Definition) -> dict[str, Any]:
    return {
        "rev": d.rev,
        "summary": d.summary,
        "origin": d.origin,
        "at": d.at,
        "steps": [_step(d, s) for s in d.steps],
        "occurs": {"mode": d.occurs.mode, "inputs": list(d.occurs.inputs)} if d.occurs else None,
        "inputs": list(d.inputs),
        "depth": d.depth,
        "units": d.units,
        "admission": d.admission,
    }


def _step(d: Definition, s: Step) -> dict[str, Any]:
    return {"index": s.index, "store": s.store, "members": [_member(d, s, m) for m in s.members]}


def _member(d: Definition, s: Step, m: Leaf | Child) -> dict[str, Any]:
    if isinstance(m, Leaf):
        return {
            "kind": "leaf",
            "key": m.key,
            "objective": m.objective,
            "requires": list(m.requires),
            "attempts": m.attempts,
            "at": m.at,
        }
    id, rev = d.children[(s.index, m.key)]
    return {
        "kind": "child",
        "key": m.key,
        "definition": m.definition,
        "binds": f"{id}@{rev}",
        "at": m.at,
    }
