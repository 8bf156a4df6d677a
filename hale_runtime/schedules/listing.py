"""What the verbs print about schedules, read from the record alone.

`schedule_lines` is `hale dna schedule`: one line a schedule, in the order
first declared, with its counts from the fold (state.py). `process_lines`
is the end of `hale dna show processes`: one line a rhythm, as the graph
holds it (`position:<p> convenes definition:<id> <cadence>`), from the
record so it reads the same on every clone, node or none; a schedule is
one line, so two schedules of one position and definition are two.
`memory_process_lines` reads the same lines from memory's `convenes`
edges (one a schedule), which agree with the record's once projected.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.record import Record
from hale_runtime.schedules.state import KINDS, Fold
from hale_runtime.schedules.terms import cadence, when

NONE_DECLARED = (
    "schedules: none declared (a ratified practice declares one, or `hale dna schedule declare`)"
)


def fold_of(record: Record) -> Fold:
    return Fold().apply_all(record.rows(kind=KINDS))


def schedule_lines(record: Record) -> list[str]:
    """`hale dna schedule`."""
    fold = fold_of(record)
    if not fold.schedules:
        return [NONE_DECLARED]
    lines = [f"schedules: {len(fold.schedules)}"]
    for id, s in fold.schedules.items():
        state = "paused" if s.paused else "live"
        counts = f"occurred {s.occurred}, skipped {s.skipped}, missed {s.missed}"
        lines.append(
            f"  {id} [{state}] {when(s.terms)} — {s.terms.definition}, convened by "
            f"{s.terms.convener} · {counts} · last {s.last_task or 'none'}"
        )
    return lines


def schedule_json(record: Record) -> dict:
    """`hale dna schedule --json` (its shape: hale_runtime/cli/shapes.py)."""
    import json

    out = []
    for id, s in fold_of(record).schedules.items():
        try:
            args = json.loads(s.terms.args or "{}")
        except ValueError:
            args = {}
        out.append({
            "id": id,
            "state": "paused" if s.paused else "live",
            "every_ms": s.terms.every_ms,
            "cron": s.terms.cron,
            "definition": s.terms.definition,
            "convener": s.terms.convener,
            "args": args if isinstance(args, dict) else {},
            "occurred": s.occurred,
            "skipped": s.skipped,
            "missed": s.missed,
            "last_task": s.last_task or None,
        })  # fmt: skip
    return {"schedules": out}


def process_json(record: Record) -> dict:
    """`hale dna show processes --json`: each rhythm once, sorted."""
    fold = fold_of(record)
    rhythms = sorted(
        {
            (s.terms.convener, f"definition:{s.terms.definition}", cadence(s.terms))
            for s in fold.schedules.values()
        }
    )
    return {"processes": [{"convener": c, "definition": d, "cadence": k} for c, d, k in rhythms]}


def process_lines(record: Record) -> list[str]:
    """`hale dna show processes`: the positions' rhythms, one line each."""
    fold = fold_of(record)
    rhythms = sorted(
        f"{s.terms.convener} convenes definition:{s.terms.definition} {cadence(s.terms)}"
        for s in fold.schedules.values()
    )
    return _processes(rhythms)


def memory_process_lines(memory: Any) -> list[str]:
    """The same lines, from memory's graph: one `convenes` edge a schedule."""
    edges = memory.edges("convenes")
    return _processes(sorted(f"{e.src} convenes {e.dst} {e.props.get('cadence')}" for e in edges))


def _processes(rhythms: list[str]) -> list[str]:
    head = f"processes: {len(rhythms)} rhythm(s), each a schedule the organization keeps"
    return [head, *rhythms]
