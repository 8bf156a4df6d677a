"""The head's reads, for a head or a leg: the record, memory's graph, one Work's hat.

Reads take no lease and write nothing.

- `dna.record.read` pages through the record's stamped rows (the rows the
  remote holds, all of them with no remote): after cursor `since` (a seq),
  optionally of one `kind` and under a `key_prefix`, at most `limit` rows
  (500; 5000 at most), each as `Row.as_json()`. `cursor` is what to pass as
  `since` next; `more` says a full page was cut short; `landed` is the
  highest seq the node's step 7 told the head had landed.
- `dna.graph.read` is memory's graph as it stands: the positions with their
  holders, the nodes and the edges (`node_kind`/`edge_kind` narrow them).
- `dna.work.hat` is what a Work is done under, for an attempt, Work (leaf
  unit) or task id: the task's definition, ask, convener and state from
  the engine's own fold of its tree (`read_root`), each Work's brief
  (objective, requires, attempts allowed) and state, and the practices the
  Board has ratified for org, as the Leader's brief reads them.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from hale_runtime.engine.ids import root_of, task_of
from hale_runtime.engine.show import _attempt_state, _task_state, read_root
from hale_runtime.engine.state import Unit
from hale_runtime.errors import Refused
from hale_runtime.record.index import prefix_range
from hale_runtime.record.practices import ratified_practices

READS = ("dna.record.read", "dna.graph.read", "dna.work.hat")
LIMIT, MAX_LIMIT = 500, 5000


class ReadRefused(Refused):
    """A read whose parameters do not say what to read."""


def read(method: str, params: dict[str, Any], record: Any, memory: Any, landed: int) -> dict:
    """One read call's answer; ReadRefused when its parameters are wrong."""
    if method == "dna.record.read":
        return read_record(record, params, landed)
    if method == "dna.graph.read":
        return read_graph(memory, params)
    return work_hat(record, _text(params, "id"))


def read_record(record: Any, params: dict[str, Any], landed: int = 0) -> dict[str, Any]:
    since, limit = _count(params, "since", 0), _count(params, "limit", LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        raise ReadRefused(f"refused: limit is 1 to {MAX_LIMIT}, not {limit}")
    kind, prefix = _text(params, "kind"), _text(params, "key_prefix")
    end = record.cursor(stamped_only=True)
    ranges = [prefix_range(prefix)] if prefix else []
    rows = list(islice(record.scan(since, kind or None, ranges, stamped_only=True), limit + 1))
    page, more = rows[:limit], len(rows) > limit
    cursor = page[-1].seq if more else max(end, since)
    return {"rows": [r.as_json() for r in page], "cursor": cursor, "more": more, "landed": landed}


def read_graph(memory: Any, params: dict[str, Any]) -> dict[str, Any]:
    node_kind, edge_kind = _text(params, "node_kind"), _text(params, "edge_kind")
    return {
        "positions": [{"name": n, "holder": h} for n, h in memory.positions().items()],
        "nodes": [
            {"id": n.id, "kind": n.kind, "props": n.props} for n in memory.nodes(node_kind or None)
        ],
        "edges": [
            {"src": e.src, "kind": e.kind, "dst": e.dst, "props": e.props}
            for e in memory.edges(edge_kind or None)
        ],
    }


def work_hat(record: Any, of: str) -> dict[str, Any]:
    if not of:
        raise ReadRefused("refused: dna.work.hat names an attempt, Work or task (id)")
    root = root_of(of)
    state = read_root(record, root)
    task, top = state.tasks.get(task_of(of)), state.tasks.get(root)
    if task is None or top is None:
        raise ReadRefused(f"refused: the record holds no task {task_of(of)}")
    attempt = state.attempts.get(of)
    if "/" in of:
        unit = attempt.unit if attempt is not None else state.units.get(of)
        if unit is None:
            raise ReadRefused(f"refused: {of} is no Work or attempt of {task.id}")
        units = [unit]
    else:
        units = [u for u in state.units.values() if u.id.startswith((f"{of}/", f"{of}."))]
    return {
        "id": of, "attempt": attempt.id if attempt is not None else None, "task": task.id,
        "definition": task.plan.name, "ask": top.ask, "convener": top.convener,
        "summary": task.summary, "state": _task_state(task), "outcome": task.outcome,
        "works": [_work(u) for u in units], "practices": ratified_practices(record),
    }  # fmt: skip


def _work(u: Unit) -> dict[str, Any]:
    attempts = [
        {
            "attempt": a.id,
            "performer": a.performer,
            "state": _attempt_state(a),
            "outcome": a.outcome,
        }
        for a in u.attempts
    ]
    return {
        "work": u.id, "key": u.key, "objective": u.leaf.objective,
        "requires": list(u.leaf.requires), "attempts_allowed": u.leaf.attempts,
        "outcome": u.outcome, "attempts": attempts,
    }  # fmt: skip


def _text(params: dict[str, Any], name: str) -> str:
    value = params.get(name) or ""
    if not isinstance(value, str):
        raise ReadRefused(f"refused: {name} is text, not {value!r}")
    return value


def _count(params: dict[str, Any], name: str, default: int) -> int:
    value = params.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ReadRefused(f"refused: {name} is a whole number, not {value!r}")
    return value
