"""An execution tree as lines, each part with one state as of the fold.

Walks a task depth first like `hale dna show` (engine/show.py): the task,
each step of its plan (registered or not yet), each member (a leaf with its
attempts, or a child task), and gives every part one of six states:
pending (not started), open (running), succeeded, failed, fenced (stopped
by a cancelled root), or case (an attempt waiting for a person: handed on
the Board's queue, or an effect its performer could not vouch for). A glyph
goes with each state so the tree reads in monochrome too.
"""

from __future__ import annotations

from typing import NamedTuple

from hale_runtime.engine import ids
from hale_runtime.engine.state import Attempt, ChildMember, State, Step, Task, Unit

PENDING, OPEN, SUCCEEDED, FAILED, FENCED = "pending", "open", "succeeded", "failed", "fenced"
CASE = "case"  # an attempt waiting for a person (engine/cases.py)
GLYPH = {PENDING: "·", OPEN: "○", SUCCEEDED: "✓", FAILED: "✗", FENCED: "⊘", CASE: "◇"}


class TreeLine(NamedTuple):
    depth: int
    what: str  # task, step, leaf, child, attempt
    id: str
    label: str
    state: str
    note: str = ""

    def text(self) -> str:
        note = f"  {self.note}" if self.note else ""
        return f"{'  ' * self.depth}{GLYPH[self.state]} {self.label} {self.state}{note}"


def tree_lines(state: State, task: str) -> list[TreeLine]:
    """The lines of `task`'s tree; one pending line when it is not admitted yet."""
    t = state.tasks.get(task)
    if t is None:
        return [TreeLine(0, "task", task, task, PENDING, "not admitted yet")]
    out: list[TreeLine] = []
    _task(t, 0, out)
    return out


def states(lines: list[TreeLine]) -> dict[str, str]:
    """id -> state, for tests and summaries."""
    return {line.id: line.state for line in lines}


def _settled(outcome: str) -> str:
    if outcome == "succeeded":
        return SUCCEEDED
    return FENCED if outcome == "cancelled" else FAILED


def _task(t: Task, depth: int, out: list[TreeLine]) -> None:
    if t.outcome is not None:
        state, note = _settled(t.outcome), t.reason
    else:
        state, note = OPEN, (f"halted: {t.halt}" if t.halt else "")
    out.append(TreeLine(depth, "task", t.id, f"{t.id} {t.plan.name}", state, note))
    for index, sp in enumerate(t.plan.steps):
        if index < len(t.steps):
            _step(t.steps[index], depth + 1, out)
        else:
            sid = ids.step_id(t.id, t.plan.rev, index)
            out.append(TreeLine(depth + 1, "step", sid, f"step {index} {sp.store}", PENDING))
            for m in sp.members:
                out.append(TreeLine(depth + 2, "member", f"{sid}/{m.key}", m.key, PENDING))


def _step(step: Step, depth: int, out: list[TreeLine]) -> None:
    if step.out:
        state, note = OPEN, (f"failing, {step.out} still out" if step.failed else "")
    elif not step.failed:
        state, note = SUCCEEDED, ""
    else:
        outcomes = {m.outcome for m in step.members.values()} - {"succeeded"}
        state, note = (FENCED if outcomes == {"cancelled"} else FAILED), ""
    out.append(TreeLine(depth, "step", step.id, f"step {step.index} {step.store}", state, note))
    for m in step.members.values():
        if isinstance(m, Unit):
            _unit(m, depth + 1, out)
        else:
            _child(m, depth + 1, out)


def _unit(u: Unit, depth: int, out: list[TreeLine]) -> None:
    if u.outcome is not None:
        state = _settled(u.outcome)
    else:
        state = OPEN if u.attempts else PENDING
    note = f"{len(u.attempts)}/{u.leaf.attempts} tries"
    out.append(TreeLine(depth, "leaf", u.id, f"leaf {u.key}", state, note))
    for a in u.attempts:
        out.append(_attempt(a, depth + 1))


def _attempt(a: Attempt, depth: int) -> TreeLine:
    label = f"a{a.n} {a.performer}"
    if a.outcome is not None:
        fenced = a.outcome == "cancelled" or a.detail.startswith("fenced")
        return TreeLine(depth, "attempt", a.id, label, FENCED if fenced else _settled(a.outcome),
                        a.detail)  # fmt: skip
    if a.unresolved:
        note = f"a case: the {a.performer} could not say whether it acted"
        return TreeLine(depth, "attempt", a.id, label, CASE, note)
    if a.case is not None:
        return TreeLine(depth, "attempt", a.id, label, CASE, "a case on the Board's queue")
    if not a.claimed:
        return TreeLine(depth, "attempt", a.id, label, PENDING, "admitted, not claimed")
    return TreeLine(depth, "attempt", a.id, label, OPEN, f"claimed, token {a.token}")


def _child(m: ChildMember, depth: int, out: list[TreeLine]) -> None:
    if m.task is None:
        mid = f"{m.step.id}/{m.key}"
        out.append(TreeLine(depth, "child", mid, f"child {m.key} {m.plan.name}", PENDING))
        return
    _task(m.task, depth, out)
