"""The JSON documents the reading verbs print with `--json`.

Each builder walks what the printed listing walks (the same fold, the same
order) and answers plain dicts and lists in the shape
hale_runtime/cli/shapes.py gives the verb, so the text and the JSON never
disagree about what is there. State words are the listing's own.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


def task_json(record: Any, task: str) -> dict[str, Any] | None:
    """`hale dna show TASK --json` (None: no such task)."""
    from hale_runtime.engine.show import admitted_by, read_root

    state = read_root(record, task)
    t = state.tasks.get(task)
    if t is None:
        return None
    return {
        "task": _task(t),
        "ask": t.ask,
        "convener": t.convener,
        "admitted_by": admitted_by(record, task),
    }


def _task(t: Any) -> dict[str, Any]:
    from hale_runtime.engine import ids
    from hale_runtime.engine.show import _fenced, _task_state

    steps = []
    for index, plan in enumerate(t.plan.steps):
        if index < len(t.steps):
            steps.append(_step(t.steps[index]))
        else:
            state = "fenced, never active" if _fenced(t) else "not active"
            sid = ids.step_id(t.id, t.plan.rev, index)
            steps.append({"id": sid, "store": plan.store, "state": state, "leaves": [], "children": []})  # fmt: skip
    return {
        "id": t.id,
        "definition": t.plan.name,
        "state": _task_state(t),
        "outcome": t.outcome,
        "steps": steps,
    }


def _step(step: Any) -> dict[str, Any]:
    from hale_runtime.engine.show import _attempt_state, _step_state
    from hale_runtime.engine.state import Unit

    leaves, children = [], []
    for m in step.members.values():
        if isinstance(m, Unit):
            leaves.append({
                "key": m.key,
                "id": m.id,
                "objective": m.leaf.objective,
                "requires": list(m.leaf.requires),
                "outcome": m.outcome,
                "attempts_allowed": m.leaf.attempts,
                "attempts": [
                    {"id": a.id, "performer": a.performer, "state": _attempt_state(a), "outcome": a.outcome}
                    for a in m.attempts
                ],
            })  # fmt: skip
        else:
            child = _task(m.task) if m.task is not None else None
            children.append({"key": m.key, "definition": m.plan.name, "task": child})
    return {
        "id": step.id,
        "store": step.store,
        "state": _step_state(step),
        "leaves": leaves,
        "children": children,
    }


def cases_json(record: Any) -> list[dict[str, Any]]:
    """The open cases, as `hale dna review` and `hale dna effect` list them."""
    from hale_runtime.engine.cases import open_cases

    return [asdict(c) for c in open_cases(record)]


def reviews_json(record: Any) -> dict[str, Any]:
    """`hale dna review --json`: the open Reviews, then the open cases."""
    from hale_runtime.schedules.review import reviews

    waiting = [r for r in reviews(record) if r.decision is None]
    found = [
        {"key": r.key, "family": r.family, "practice": r.practice, "text": r.text} for r in waiting
    ]
    return {"reviews": found, "cases": cases_json(record)}


def lease_json(lease: Any) -> dict[str, Any] | None:
    """A body lease as `hale dna body --json` prints it."""
    if lease is None:
        return None
    return {
        "holder": lease.holder,
        "token": lease.token,
        "until": lease.until,
        "live": lease.live(),
    }


def keys_json(trust: Any) -> dict[str, Any]:
    """`hale dna key list --json`: every key the record binds."""
    out = []
    for fingerprint, k in trust.keys.items():
        bound = "genesis" if fingerprint == trust.genesis else "endorsed" if k.endorsed else "self"
        out.append({"fingerprint": fingerprint, "identity": k.identity, "bound": bound, "revoked": bool(k.revoked)})  # fmt: skip
    # who endorses keys in the Board's stead (record/delegates.py)
    return {"genesis": trust.genesis or None, "keys": out,
            "delegates": sorted(trust.delegates.given)}  # fmt: skip
