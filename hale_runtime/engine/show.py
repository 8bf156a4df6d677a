"""`hale dna show`: an execution's tree as text, folded from its rows alone.

`fold_root` folds the rows of one root's tree (every key whose root is it)
into a State, so a verb reads any clone's record with no organization
running. `render` prints the tree depth first: the task, then each step in
order (registered or not yet active), each member (leaf or child), each
leaf's attempts, with one state word each and the detail that explains it.
"""

from __future__ import annotations

from typing import Any

from hale_runtime.engine import ids
from hale_runtime.engine.budget import Budget, BudgetPolicy
from hale_runtime.engine.state import CANCELLED, Attempt, ChildMember, State, Step, Task, Unit
from hale_runtime.record import kinds

INDENT = "  "


def fold_root(rows: list[Any], task: str) -> State:
    """The state of `task`'s root tree from `rows` (all the record's, or a prefix's)."""
    root = ids.root_of(task)
    state = State(Budget(BudgetPolicy("none", 0)))
    for r in rows:
        if ids.root_of(r.key) == root:
            state.apply(r.kind, r.key, r.body, r.at)
    return state


def read_root(record: Any, task: str) -> State:
    """The state of `task`'s root tree, its rows read from the record's index
    by key (the root and every key below it), so it costs the same at any age;
    rows the epoch rule voids (record/epochs.py) are left out."""
    rows = record.under(ids.root_of(task), "/.")
    return fold_root([r for r in rows if not record.stale(r)], task)


def shown(record: Any, task: str) -> str | None:
    """What `hale dna show TASK` prints, read by key (None: no such task)."""
    state = read_root(record, task)
    if task not in state.tasks:
        return None
    return render(state, task, admitted_by(record, task))


def shown_by_scan(rows: list[Any], task: str) -> str | None:
    """What `show` prints, folded from `rows` (all the record's): the answer
    the reads by key must give (tests/engine/test_show.py, bench/longevity.py)."""
    state = fold_root(rows, task)
    if task not in state.tasks:
        return None
    root = ids.root_of(task)
    admitted = [r for r in rows if r.kind == kinds.WORKFLOW_ADMITTED and r.key == root]
    started = [r for r in rows if admitted and r.kind == kinds.NODE_STARTED
               and r.key == f"node/{admitted[0].who}"]  # fmt: skip
    return render(state, task, _admitter(admitted, started))


def admitted_by(record: Any, task: str) -> str:
    """The body (its holder, and its owner when it runs as one) whose `workflow.admitted`
    minted `task`'s root ("" when none)."""
    admitted = record.rows(kind=kinds.WORKFLOW_ADMITTED, key=ids.root_of(task))
    if not admitted:
        return ""
    return _admitter(admitted, record.rows(kind=kinds.NODE_STARTED, key=f"node/{admitted[0].who}"))


def _admitter(admitted: list[Any], started: list[Any]) -> str:
    """The first admission's body, and its owner: the one the body's latest
    `node.started` before the admission named."""
    if not admitted:
        return ""
    first = admitted[0]
    owners = [r.body.get("owner") for r in started if r.at <= first.at]
    return f"{first.who} (owner {owners[-1]})" if owners and owners[-1] else first.who


def render(state: State, task: str, by: str = "") -> str:
    """The tree of `task`; `by`, the body that admitted its root, is said on the root."""
    t = state.tasks[task]
    lines: list[str] = []
    _task(t, 0, lines, by)
    return "\n".join(lines) + "\n"


def _task(t: Task, depth: int, out: list[str], by: str = "") -> None:
    pad = INDENT * depth
    out.append(f"{pad}{t.id}  {t.plan.name}  {_task_state(t)}")
    if t.parent is None:
        admitted = f", admitted by {by}" if by else ""
        out.append(f"{pad}{INDENT}ask {t.ask}, convened by {t.convener}{admitted}")
        if t.halt == CANCELLED:
            who = f" by {t.cancelled_by}" if t.cancelled_by else ""
            out.append(f"{pad}{INDENT}cancelled{who}: everything below it is fenced")
    if t.summary:
        out.append(f"{pad}{INDENT}born: {t.summary}")
    for index, sp in enumerate(t.plan.steps):
        if index < len(t.steps):
            _step(t.steps[index], depth + 1, out)
        else:
            sid = ids.step_id(t.id, t.plan.rev, index)
            keys = ", ".join(m.key for m in sp.members)
            never = "fenced, never active" if _fenced(t) else "not active"
            out.append(f"{pad}{INDENT}step {sid}  {sp.store}  {never}  ({keys})")


def _task_state(t: Task) -> str:
    if t.outcome is not None:
        return f"{t.outcome} ({t.reason})" if t.reason else t.outcome
    return f"running, halted ({t.halt})" if t.halt else "running"


def _step(step: Step, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    out.append(f"{pad}step {step.id}  {step.store}  {_step_state(step)}")
    for m in step.members.values():
        if isinstance(m, Unit):
            _unit(m, depth + 1, out)
        else:
            _child(m, depth + 1, out)


def _fenced(t: Task) -> bool:
    return t.halt == CANCELLED


def _step_state(step: Step) -> str:
    if step.out:
        return f"failed, {step.out} member(s) still out" if step.failed else "running"
    if step.failed and {m.outcome for m in step.members.values()} - {"succeeded"} == {CANCELLED}:
        return "fenced"
    return "failed" if step.failed else "completed"


def _unit(u: Unit, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    tries = f"{len(u.attempts)} of {u.leaf.attempts} attempt(s)"
    out.append(f"{pad}leaf {u.key}  {u.id}  {u.outcome or 'out'}  ({tries})")
    out.append(f"{pad}{INDENT}{u.leaf.objective!r} requires {' '.join(u.leaf.requires)}")
    for a in u.attempts:
        out.append(f"{pad}{INDENT}attempt {a.id}  {a.performer}  {_attempt_state(a)}")


def _attempt_state(a: Attempt) -> str:
    if a.outcome is not None:
        said = f"{a.outcome}: {a.detail}" if a.detail else a.outcome
        return f"{said} (resolved by {a.resolved_by})" if a.resolved_by else said
    if a.unresolved:
        return f"waiting for a person: hale dna effect resolve attempt:{a.id} --outcome failed|succeeded"
    if not a.claimed:
        return "admitted, not yet claimed"
    if a.case is not None:
        return "out: a case on the Board's queue"
    return "out" + (f" (redelivered {a.redelivered}x)" if a.redelivered else "")


def _child(m: ChildMember, depth: int, out: list[str]) -> None:
    if m.task is None:
        out.append(f"{INDENT * depth}child {m.key}  {m.plan.name}  not admitted")
        return
    out.append(f"{INDENT * depth}child {m.key}:")
    _task(m.task, depth + 1, out)
