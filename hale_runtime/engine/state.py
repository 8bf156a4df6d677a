"""The engine's state: a fold over the record's rows, one row at a time.

Every transition the engine makes is a row, and `State.apply` is the only
thing that changes state, whether the row was just written by this process
or read back at a restart, so a rebuilt state is the state that was lost.
The fold is tolerant of repeats: a second outcome of an attempt, a second
settlement of a unit or a task, changes nothing.

A task's steps are registered in order, its current step is the last; a
step counts the members still out (`out`) and fails when one settles
anything but succeeded. A failed step halts what runs below it (child
executions admit nothing new), and a cancelled root halts its whole tree.
The fold marks every task it touches as dirty for the engine to advance.

A long-lived organization folds with `forget_settled`: once a root settles,
its tree leaves the state, and what a later decision reads of it stays: its
ask among the asks seen (a compact `Seen`), its id among the roots settled
(so a late row about it is ignored, not taken for a new task), the highest
root number. Readers that show settled work (`hale dna show`, the debugger) fold
one root's rows with everything kept. `snapshot`/`restore` make the state a
checkpoint's plain data: the counters, the budget's windows, the ids seen,
and for each root still open the rows that built it, folded again by
`apply` on restore, so `apply` stays the one thing that changes the state.

Rows read back from the record are input (`fold`): one that does not fit
its kind never reaches the fold (the record leaves it out), and one whose
application raises, being inconsistent with what came before it (a step of
a task never admitted, a step before the one ahead of it completed, an
attempt out of turn, a child of a member that is none), is skipped and kept
in `poison` for the organization to quarantine. Each handler looks
everything up before it changes anything, so a row that raises leaves the
state as it was, and every reader of the record (the engine, the head,
`show`, the debugger) skips the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hale_runtime.engine import ids
from hale_runtime.engine.budget import Budget
from hale_runtime.engine.plan import ChildPlan, LeafPlan, Plan, plan_from_json
from hale_runtime.errors import one_line
from hale_runtime.record import kinds
from hale_runtime.record.epochs import SPEND_KINDS
from hale_runtime.seen import Seen

SUCCEEDED = "succeeded"
CANCELLED = "cancelled"
# a performer's own rows about an attempt, handed back to it as `Work.facts`
FACT_KINDS = frozenset(
    {kinds.MODEL_CALLED, kinds.BOARD_CASE, kinds.MUTATION_PREPARED, kinds.BUDGET_REFUSED,
     kinds.EFFECT_CALLING, kinds.EFFECT_CALLED}
)  # fmt: skip


@dataclass(slots=True, eq=False)
class Attempt:
    id: str
    unit: Unit
    n: int
    performer: str
    claimed: bool = False
    token: int = 0
    outcome: str | None = None
    detail: str = ""
    resolved_by: str = ""  # the person who decided its outcome, when a person did
    unresolved: bool = False
    redelivered: int = 0
    facts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def case(self) -> dict[str, Any] | None:
        """The case its performer handed on the Board's queue, if it did."""
        return next((body for kind, body in self.facts if kind == kinds.BOARD_CASE), None)

    @property
    def waits_for_person(self) -> bool:
        """Open, and a person's to answer: a case on the Board's queue, or an
        effect its performer could not say happened."""
        return self.outcome is None and (self.unresolved or self.case is not None)


@dataclass(slots=True, eq=False)
class Unit:
    id: str
    leaf: LeafPlan
    step: Step
    attempts: list[Attempt] = field(default_factory=list)
    outcome: str | None = None

    @property
    def key(self) -> str:
        return self.leaf.key


@dataclass(slots=True, eq=False)
class ChildMember:
    key: str
    plan: Plan
    step: Step
    task: Task | None = None
    outcome: str | None = None


@dataclass(slots=True, eq=False)
class Step:
    id: str
    index: int
    store: str
    task: Task
    members: dict[str, Unit | ChildMember] = field(default_factory=dict)
    out: int = 0
    failed: bool = False


@dataclass(slots=True, eq=False)
class Task:
    id: str
    plan: Plan
    parent: ChildMember | None = None
    ask: str = ""
    convener: str = ""
    summary: str = ""
    steps: list[Step] = field(default_factory=list)
    halt: str | None = None  # "cancelled" or "failed": nothing new starts below
    cancelled_by: str = ""  # who cancelled it (a root's `workflow.cancelled`)
    outcome: str | None = None
    reason: str = ""


class State:
    def __init__(self, budget: Budget, forget_settled: bool = False):
        self.budget = budget
        self.forget_settled = forget_settled
        self.tasks: dict[str, Task] = {}
        self.units: dict[str, Unit] = {}
        self.attempts: dict[str, Attempt] = {}
        self.asks: dict[str, str] = {}  # ask -> the root admitted for it, while held
        self.asks_settled = Seen()  # the asks of roots settled and forgotten
        self.roots_settled = Seen()  # the roots settled and forgotten
        self.top_root = 0  # the highest N of a root `t<N>` the record holds
        self.dirty: dict[Task, None] = {}  # in the order touched
        self.open: dict[str, None] = {}  # tasks not yet settled, in admission order
        self.poison: dict[str, tuple[str, str]] = {}  # row id -> (kind, why) of rows that raised
        self.judge: Callable[[Any], str] | None = None  # the epoch rule (record.stale), when read
        self._apply = {
            kinds.WORKFLOW_ADMITTED: self._admitted,
            kinds.TASK_BORN: self._born,
            kinds.STEP_REGISTERED: self._registered,
            kinds.ATTEMPT_ADMITTED: self._attempt_admitted,
            kinds.ATTEMPT_CLAIMED: self._claimed,
            kinds.ATTEMPT_OUTCOME: self._outcome,
            kinds.WORK_SETTLED: self._work_settled,
            kinds.WORKFLOW_SETTLED: self._workflow_settled,
            kinds.WORKFLOW_CANCELLED: self._cancelled,
            kinds.EFFECT_UNRESOLVED: self._unresolved,
            kinds.EFFECT_REDELIVERED: self._redelivered,
            kinds.MODEL_CALLED: self._model_called,
            kinds.BUDGET_EXHAUSTED: self._exhausted,
        }

    def apply(self, kind: str, key: str, body: dict[str, Any], at: int) -> None:
        """Fold one row."""
        handler = self._apply.get(kind)
        try:
            if handler is not None:
                handler(key, body, at)
            elif kind in FACT_KINDS:
                self._fact(kind, key, body)
        except KeyError:
            if not self.forgotten(key):
                raise  # a row about nothing the record holds
            # a late row about settled work: it changes nothing

    def fold(self, row: Any) -> bool:
        """Fold one row read from the record; False (and noted in `poison`) when
        applying it raised, which leaves the state as it was. A row the epoch
        rule voids (`judge`, record/epochs.py) is skipped the same way, but for
        the spend it records, which the budget still counts, and the call's
        answer, which the attempt's performer may bind."""
        why = self.judge(row) if self.judge is not None else ""
        if why:
            if row.kind in SPEND_KINDS:
                self.budget.account(
                    row.at, int(row.body.get("micros", 0)), row.body.get("call", "")
                )
                # the call's answer stays bindable: an attempt redelivered after the
                # takeover reconciles on it (answered_from_calls) rather than ask again
                self._fact(row.kind, row.key, row.body)
            self.poison[row.id] = (row.kind, why)
            return False
        try:
            self.apply(row.kind, row.key, row.body, row.at)
        except Exception as error:  # input, not our fault: skipped and quarantined
            self.poison[row.id] = (row.kind, one_line(error))
            return False
        return True

    def forgotten(self, key: str) -> bool:
        """Whether `key` lies under a root settled and forgotten."""
        return bool(self.roots_settled) and ids.root_of(key) in self.roots_settled

    def seen_ask(self, ask: str) -> bool:
        """Whether a root was admitted under `ask` (held, or settled and forgotten)."""
        return ask in self.asks or ask in self.asks_settled

    # ---- checkpoints ---------------------------------------------------------------

    def snapshot(self, rows_of: Callable[[str], Iterable[Any]]) -> dict[str, Any]:
        """The state as plain data; `rows_of(root)` gives an open root's rows (seq order)."""
        held: list[tuple[int, str, str, dict[str, Any], int]] = []
        for task in self.open:
            if self.tasks[task].parent is None:
                held += [(r.seq, r.kind, r.key, r.body, r.at) for r in rows_of(task)]
        held.sort(key=lambda r: r[0])
        return {
            "top_root": self.top_root,
            "asks_settled": self.asks_settled.to_bytes(),
            "roots_settled": self.roots_settled.to_bytes(),
            "budget": self.budget.snapshot(),
            "open": [r[1:] for r in held],
        }

    @classmethod
    def restore(cls, budget: Budget, data: dict[str, Any]) -> State:
        """The state a snapshot describes: its open roots folded again from their
        rows (by `apply`, as ever), then the counters, ids and budget set."""
        state = cls(budget, forget_settled=True)
        for kind, key, body, at in data["open"]:
            try:
                state.apply(kind, key, body, at)
            except Exception:  # noqa: S112 (poison found when it was first folded: skipped again)
                continue
        state.top_root = data["top_root"]
        state.asks_settled = Seen.from_bytes(data["asks_settled"])
        state.roots_settled = Seen.from_bytes(data["roots_settled"])
        budget.restore(data["budget"])
        return state

    # ---- forgetting settled work -------------------------------------------------

    def _forget(self, t: Task) -> None:
        """`t`, a settled root, and everything below it leave the state."""
        if t.ask:
            self.asks.pop(t.ask, None)
            self.asks_settled.add(t.ask)
        self.roots_settled.add(t.id)
        todo = [t]
        while todo:
            task = todo.pop()
            self.tasks.pop(task.id, None)
            self.open.pop(task.id, None)
            self.dirty.pop(task, None)
            for step in task.steps:
                for m in step.members.values():
                    if isinstance(m, ChildMember):
                        if m.task is not None:
                            todo.append(m.task)
                        continue
                    self.units.pop(m.id, None)
                    for a in m.attempts:
                        self.attempts.pop(a.id, None)

    # ---- tasks and steps ---------------------------------------------------------

    def _admitted(self, key: str, body: dict[str, Any], at: int) -> None:
        if key in self.tasks or self.forgotten(key):
            return
        if "plan" in body:
            self._one_root_an_ask(str(body.get("ask", "")))
            plan = plan_from_json(body["plan"])
            if not plan.steps:
                raise ValueError("a plan has at least one step")
            t = Task(key, plan, None, body.get("ask", ""))
            self.top_root = max(self.top_root, ids.root_number(key))
            if t.ask:
                self.asks[t.ask] = key
        else:
            parent = self.tasks[body["parent"]]
            member = parent.steps[body["step"]].members[body["member"]]
            if not isinstance(member, ChildMember) or member.task is not None:
                raise ValueError(f"{body['member']} is no child waiting to be admitted")
            if key != ids.child_id(parent.id, body["step"], body["member"]):
                raise ValueError(f"a child of {parent.id} is not called {key}")
            t = Task(key, member.plan, member)
            member.task = t
            t.halt = parent.halt or ("failed" if member.step.failed else None)
        t.convener = body.get("convener", "")
        self.tasks[key] = t
        self.open[key] = None
        self.dirty[t] = None

    def _one_root_an_ask(self, ask: str) -> None:
        """An ask is admitted once, decided by the record: a second root under it
        (written by a body that died before its answer reached the remote, and
        pushed after another body answered) is refused, so it is never run. Only
        held roots are looked at: a settled one forgotten is a digest, and a
        digest's rare collision must not refuse a new ask."""
        if ask and ask in self.asks:
            raise ValueError(f"ask {ask} is admitted already, as {self.asks[ask]}")

    def _born(self, key: str, body: dict[str, Any], at: int) -> None:
        t = self.tasks.get(key)
        if t is not None:
            t.summary = body.get("summary", "")

    def _registered(self, key: str, body: dict[str, Any], at: int) -> None:
        t = self.tasks[ids.task_of(key)]
        index = len(t.steps)
        if ids.step_id(t.id, t.plan.rev, index) != key:
            return  # a repeat of a step already registered
        if t.outcome is not None or t.steps and (t.steps[-1].out or t.steps[-1].failed):
            raise ValueError(f"{key} cannot start: the step before it has not completed")
        sp = t.plan.steps[index]
        step = Step(key, index, sp.store, t)
        for m in sp.members:
            if isinstance(m, ChildPlan):
                step.members[m.key] = ChildMember(m.key, m.plan, step)
            else:
                unit = Unit(ids.unit_id(key, m.key), m, step)
                step.members[m.key] = unit
                self.units[unit.id] = unit
        step.out = len(step.members)
        t.steps.append(step)
        self.dirty[t] = None

    def _settle_member(self, m: Unit | ChildMember, outcome: str) -> None:
        m.outcome = outcome
        step = m.step
        step.out -= 1
        if outcome != SUCCEEDED:
            self._fail_step(step, outcome)
        self.dirty[step.task] = None

    def _fail_step(self, step: Step, outcome: str) -> None:
        if step.failed:
            return
        step.failed = True
        why = CANCELLED if outcome == CANCELLED and step.task.halt == CANCELLED else "failed"
        for m in step.members.values():
            if isinstance(m, ChildMember) and m.task is not None and m.outcome is None:
                self.halt(m.task, why)

    def halt(self, t: Task, why: str) -> None:
        """Nothing new starts in `t` or below it."""
        if t.outcome is not None or t.halt == why or t.halt == CANCELLED:
            return
        t.halt = why
        self.dirty[t] = None
        if t.steps:
            for m in t.steps[-1].members.values():
                if isinstance(m, ChildMember) and m.task is not None and m.outcome is None:
                    self.halt(m.task, why)

    def _work_settled(self, key: str, body: dict[str, Any], at: int) -> None:
        unit = self.units.get(key)
        if unit is not None and unit.outcome is None:
            self._settle_member(unit, body["outcome"])

    def _workflow_settled(self, key: str, body: dict[str, Any], at: int) -> None:
        t = self.tasks.get(key)
        if t is None or t.outcome is not None:
            return
        t.outcome, t.reason = body["outcome"], body.get("reason", "")
        self.open.pop(key, None)
        self.dirty.pop(t, None)
        if t.parent is not None and t.parent.outcome is None:
            self._settle_member(t.parent, t.outcome)
        elif t.parent is None and self.forget_settled:
            self._forget(t)

    def _cancelled(self, key: str, body: dict[str, Any], at: int) -> None:
        t = self.tasks.get(key)
        if t is not None:
            t.cancelled_by = t.cancelled_by or str(body.get("by", ""))
            self.halt(t, CANCELLED)

    # ---- attempts ----------------------------------------------------------------

    def _attempt_admitted(self, key: str, body: dict[str, Any], at: int) -> None:
        unit = self.units[key.rsplit("/", 1)[0]]
        if key in self.attempts:
            return
        if key != ids.attempt_id(unit.id, len(unit.attempts)):
            raise ValueError(f"{unit.id} admits {ids.attempt_id(unit.id, len(unit.attempts))} next")
        a = Attempt(key, unit, len(unit.attempts), body["performer"])
        unit.attempts.append(a)
        self.attempts[key] = a

    def _claimed(self, key: str, body: dict[str, Any], at: int) -> None:
        a = self.attempts[key]
        a.claimed, a.token = True, body.get("token", 0)

    def _outcome(self, key: str, body: dict[str, Any], at: int) -> None:
        a = self.attempts.get(key)
        if a is not None and a.outcome is None:
            a.outcome, a.detail = body["outcome"], body.get("detail", "")
            a.resolved_by = body.get("resolved_by", "")
            self.dirty[a.unit.step.task] = None

    def _unresolved(self, key: str, body: dict[str, Any], at: int) -> None:
        self.attempts[key].unresolved = True

    def _redelivered(self, key: str, body: dict[str, Any], at: int) -> None:
        a = self.attempts[key]
        a.redelivered += 1
        a.unresolved = False

    def _fact(self, kind: str, key: str, body: dict[str, Any]) -> None:
        a = self.attempts.get(key)
        if a is not None:
            a.facts.append((kind, body))

    # ---- the budget ------------------------------------------------------------

    def _model_called(self, key: str, body: dict[str, Any], at: int) -> None:
        self.budget.account(at, int(body.get("micros", 0)), body.get("call", ""))
        self._fact(kinds.MODEL_CALLED, key, body)

    def _exhausted(self, key: str, body: dict[str, Any], at: int) -> None:
        self.budget.announce(body.get("window", key.removeprefix("budget/")))
