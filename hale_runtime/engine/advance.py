"""Advancing a task: what the engine decides once the fold marked it dirty.

A task advances step by step. Its first step is registered when it has
none; then each unit of the step in hand gets its next attempt, or its
settlement once an attempt succeeded, failed for the last time, or the task
halted (a cancel fences the attempts still out). When no member of the step
is out, the task registers the next step, or settles: succeeded after its
last step, failed or cancelled when a step failed or it halted. Every
decision is a row emitted to the round's batch (`emit`), applied to the
state at once, so one advance sees the one before it. A task whose advance
raises is Stuck: the engine quarantines its row and never advances it again,
and the others go on.

`Advancing` is the Engine's base: the Engine supplies `state`, `emit`,
`memory`, `holder`, `performers`, `stuck` and `unclaimed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hale_runtime.engine import ids
from hale_runtime.engine.state import CANCELLED, SUCCEEDED, Attempt, Step, Task, Unit
from hale_runtime.errors import one_line
from hale_runtime.memory import Fenced, MemoryFailed
from hale_runtime.performers import FAILED
from hale_runtime.record import RecordError, kinds


class Stuck(Exception):
    """A task whose advance raised: it is never advanced again; the rest go on."""

    def __init__(self, task: str, why: str):
        super().__init__(why)
        self.task, self.why = task, why


class Advancing:
    """The Engine's decisions for dirty tasks (see the module's comment)."""

    state: Any
    memory: Any
    holder: str
    performers: Any
    stuck: set[str]
    unclaimed: list[Attempt]

    if TYPE_CHECKING:  # the Engine's

        def emit(self, kind: str, key: str, body: dict[str, Any]) -> None: ...

    def _advance_dirty(self) -> None:
        dirty = self.state.dirty
        while dirty:
            t = next(iter(dirty))
            del dirty[t]
            if t.id in self.stuck:
                continue
            try:
                self._advance(t)
            except (MemoryFailed, Fenced, RecordError):
                raise
            except Exception as error:  # the task's own rows: it is stuck, the rest goes on
                raise Stuck(t.id, one_line(error)) from error

    def _advance(self, t: Task) -> None:
        if t.outcome is not None:
            return
        if not t.steps:
            if t.halt:
                self._settle(t, _halt_outcome(t), f"halted before it started ({t.halt})")
            else:
                self._register(t, 0)
            return
        step = t.steps[-1]
        for m in list(step.members.values()):
            if m.outcome is None and isinstance(m, Unit):
                self._advance_unit(t, step, m)
        if step.out:
            return
        if step.failed or t.halt:
            self._settle(t, _halt_outcome(t), _why(t, step))
        elif step.index + 1 < len(t.plan.steps):
            self._register(t, step.index + 1)
        else:
            self._settle(t, SUCCEEDED, "")

    def _register(self, t: Task, index: int) -> None:
        sp = t.plan.steps[index]
        key = ids.step_id(t.id, t.plan.rev, index)
        self.emit(
            kinds.STEP_REGISTERED, key, {"store": sp.store, "members": [m.key for m in sp.members]}
        )
        step = t.steps[index]
        for m in list(step.members.values()):
            if isinstance(m, Unit):
                self._admit_attempt(m, 0)
            else:
                child = ids.child_id(t.id, index, m.key)
                body = {"parent": t.id, "step": index, "member": m.key, "convener": t.id}
                self.emit(kinds.WORKFLOW_ADMITTED, child, {**body, "definition": m.plan.name})
                self.emit(kinds.TASK_BORN, child, {"summary": f"{m.plan.name}: {m.plan.summary}"})

    def _advance_unit(self, t: Task, step: Step, u: Unit) -> None:
        halted = t.halt is not None or step.failed
        a = u.attempts[-1] if u.attempts else None
        if a is None:
            if halted:
                self._settle_unit(u, _halt_outcome(t))
            else:
                self._admit_attempt(u, 0)
            return
        if a.outcome is None:
            if t.halt != CANCELLED:
                return  # out: its outcome is recorded when it comes
            self._fence(a)
        if a.outcome == SUCCEEDED:
            self._settle_unit(u, SUCCEEDED)
        elif a.outcome == FAILED and a.n + 1 < u.leaf.attempts and not halted:
            self._admit_attempt(u, a.n + 1)
        else:
            self._settle_unit(u, a.outcome if a.outcome != SUCCEEDED else FAILED)

    def _admit_attempt(self, u: Unit, n: int) -> None:
        kind = self.performers.select(u.leaf.requires)
        key = ids.attempt_id(u.id, n)
        self.emit(kinds.ATTEMPT_ADMITTED, key, {"performer": kind or "nobody"})
        if kind is None:
            detail = f"no performer is provided for `{u.leaf.requires[0]}`"
            self.emit(
                kinds.ATTEMPT_OUTCOME,
                key,
                {"outcome": FAILED, "performer": "nobody", "detail": detail},
            )
        else:
            self.unclaimed.append(self.state.attempts[key])

    def _fence(self, a: Attempt) -> None:
        """A cancelled root's attempt: its outcome is cancelled, its claim released."""
        if a.claimed:
            self.memory.release(a.id, self.holder, a.token)
        detail = f"fenced: {ids.root_of(a.id)} was cancelled"
        self.emit(
            kinds.ATTEMPT_OUTCOME,
            a.id,
            {"outcome": CANCELLED, "performer": a.performer, "detail": detail},
        )

    def _settle_unit(self, u: Unit, outcome: str) -> None:
        self.emit(kinds.WORK_SETTLED, u.id, {"outcome": outcome, "attempts": len(u.attempts)})

    def _settle(self, t: Task, outcome: str, reason: str) -> None:
        body = {"outcome": outcome, "reason": reason} if reason else {"outcome": outcome}
        self.emit(kinds.WORKFLOW_SETTLED, t.id, body)


def _halt_outcome(t: Task) -> str:
    return CANCELLED if t.halt == CANCELLED else FAILED


def _why(t: Task, step: Step) -> str:
    if t.halt == CANCELLED:
        return f"{ids.root_of(t.id)} was cancelled"
    failed = [k for k, m in step.members.items() if m.outcome not in (None, SUCCEEDED)]
    if failed:
        return f"step {step.index} failed: {', '.join(failed)}"
    return "a step above it failed"
