"""The workflow engine: rounds of fold, decide, write one batch, deliver.

A round (`step`) folds what other writers appended (a person resolving an
effect), takes the replies that arrived, reconciles attempts a dead process
left claimed, advances every task the fold marked dirty, claims the
attempts just admitted in memory, and appends every row it decided as one
record commit. Only then, with the claims durable, are attempts delivered to
their performers; what they answer waits in the inbox for the next round.
`pump` runs rounds until nothing moves; a node calls it once a tick.

Rows are applied to the state as they are decided (the same fold a rebuild
runs), so a round sees its own decisions; rows read back after the append
are folded only when another writer made them. Replies are checked against
the state: an attempt with an outcome ignores a repeat, and a reply from any
performer but the one the attempt was admitted to is refused with a row.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hale_runtime import errors
from hale_runtime.engine import ids
from hale_runtime.engine.advance import Advancing, Stuck
from hale_runtime.engine.budget import Budget, BudgetPolicy
from hale_runtime.engine.plan import BoundLike, Plan, check_inputs, plan_of
from hale_runtime.engine.state import CANCELLED, Attempt, State
from hale_runtime.performers import (
    ACTED,
    FAILED,
    NOT_ACTED,
    Answer,
    Context,
    ModelCall,
    Pending,
    Performers,
    Reconciled,
    Unsure,
    Work,
)
from hale_runtime.record import kinds
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.follow import Follower

if TYPE_CHECKING:
    from hale_runtime.memory import Memory
    from hale_runtime.record import Record

CEILING_MICROS = 2_000_000  # the cost ceiling of one attempt's model-backed work
CLAIM_TTL_S = 86_400.0
MINT_TTL_S = 100 * 365 * 86_400.0  # a task id's claim: held for good, never handed out twice
RESOLVE = "hale dna effect resolve attempt:{} --outcome failed|succeeded"


@dataclass(frozen=True)
class Admitted:
    task: str = ""  # the task id ("" when refused)
    new: bool = False  # False: the ask was admitted before, this is that task
    refused: str = ""  # why nothing was admitted


class Engine(Advancing):
    def __init__(
        self,
        record: Record,
        memory: Memory,
        performers: Performers | None = None,
        budget: BudgetPolicy | None = None,
        clock: Callable[[], int] | None = None,
        ceiling_micros: int = CEILING_MICROS,
        tell_board: Callable[[dict[str, Any]], None] | None = None,
        resume: tuple[int, dict[str, Any]] | None = None,
        restart: Callable[[], tuple[int, dict[str, Any]] | None] | None = None,
    ):
        self.record, self.memory = record, memory
        self.performers = performers or Performers()
        self.clock = clock or record.clock
        self.ceiling = ceiling_micros
        self.tell_board = tell_board  # told once a window is exhausted (after its row is written)
        self._told: list[dict[str, Any]] = []
        self.holder = record.who
        self.state = State(Budget(budget or BudgetPolicy()), forget_settled=True)
        self.state.judge = self._judge
        self.batch: list[tuple[str, str, dict[str, Any]]] = []
        self.inbox: list[tuple[str, str, Answer | Pending | Unsure]] = []
        self.unclaimed: list[Attempt] = []
        self.to_deliver: list[Attempt] = []
        self.to_reconcile: list[Attempt] = []
        # whether an attempt is this organization's to take up after a restart (over a
        # shared record, another owner's attempt is its own body's: plug.py sets it)
        self.mine: Callable[[str], bool] = lambda attempt: True
        self.follower = Follower(record)
        self.follower.void = False  # stale rows too: the fold quarantines them
        self.stuck: set[str] = set()  # tasks whose advance raised: never advanced again
        self._poison: dict[str, tuple[str, str]] = {}
        self.ctx = Context(self._admit_spend, self._note_call, self.performers.provider,
                           self.clock, self._journal)  # fmt: skip
        self.restart = restart or (lambda: None)  # the newest checkpoint's part: see step
        self.resume(resume)

    def resume(self, checkpoint: tuple[int, dict[str, Any]] | None) -> None:
        """Stand where a checkpoint's `(seq, snapshot)` stood and fold what
        followed; with none (or one made under another budget policy), fold all."""
        policy = self.state.budget.policy
        if checkpoint is None or tuple(checkpoint[1].get("policy", ())) != _policy(policy):
            self.rebuild()
            return
        seq, data = checkpoint
        self.state = State.restore(Budget(policy), data["state"])
        self.state.judge = self._judge
        self._poison.update(data.get("poison", {}))  # found, not yet quarantined
        self.rebuild(since=seq)

    @property
    def cursor(self) -> int:
        """The seq the fold has read to (the checkpointer's question)."""
        return self.follower.seq

    def snapshot(self) -> dict[str, Any]:
        """The engine's fold at its cursor as plain data (a checkpoint's part)."""
        upto = self.cursor
        stale = self.record.stale  # a void row is not folded again on restore
        state = self.state.snapshot(
            lambda root: (r for r in self.record.under(root, "/.", until=upto) if not stale(r))
        )
        poison = {**self.state.poison, **self._poison}  # found, not yet taken to quarantine
        return {"policy": _policy(self.state.budget.policy), "state": state, "poison": poison}

    # ---- the fold ------------------------------------------------------------

    def rebuild(self, since: int = 0) -> None:
        """Fold the record (after `since`, onto a state restored there); queue
        what a dead process left unfinished."""
        if not since:
            self.state = State(Budget(self.state.budget.policy), forget_settled=True)
            self.state.judge = self._judge
        self.follower = Follower(self.record, since)
        self.follower.void = False  # stale rows too: the fold quarantines them
        fold = self.state.fold
        for r in self.follower.new_rows():
            fold(r)
        self.batch.clear()
        self.inbox.clear()
        self.to_deliver.clear()
        self.unclaimed = []
        self.to_reconcile = []
        for a in self.state.attempts.values():
            if a.outcome is None and self.mine(a.id):
                (self.to_reconcile if a.claimed else self.unclaimed).append(a)
        self.state.dirty = dict.fromkeys(self.state.tasks[t] for t in self.state.open)

    def _judge(self, row: Any) -> str:
        """Why the fold must skip `row` before applying it: stale under the epoch
        rule (record/epochs.py), or a second root for an ask whose first root
        settled and left the state (the fold itself refuses one while the first
        is held): the first admission of an ask in the chain stands."""
        why = self.record.stale(row)
        if why or row.kind != kinds.WORKFLOW_ADMITTED or "plan" not in row.body:
            return why
        ask = row.body.get("ask")
        if not ask or ask not in self.state.asks_settled:
            return ""
        first = self.record.admission(ask)
        if first is None or first.id == row.id or first.seq >= row.seq or first.key == row.key:
            return ""
        if self.record.stale(first):
            return ""
        return f"ask {ask} is admitted already, as {first.key}"

    def keep_mine(self, mine: Callable[[str], bool]) -> None:
        """From now on take up after a restart only the attempts `mine` says are
        this organization's, and drop the others a rebuild already queued."""
        self.mine = mine
        self.to_reconcile = [a for a in self.to_reconcile if mine(a.id)]
        self.unclaimed = [a for a in self.unclaimed if mine(a.id)]

    def catch_up(self) -> None:
        """Fold the rows other writers appended since the engine last looked."""
        self._fold_new()

    def _fold_new(self, own: set[str] | None = None) -> None:
        fold = self.state.fold
        for r in self.follower.new_rows():
            if own is None or r.id not in own:
                fold(r)

    def emit(self, kind: str, key: str, body: dict[str, Any]) -> None:
        """Decide a row: applied now, written with the round's batch. A row
        that would not fit its kind raises here, in the task it is about."""
        why = kinds.check(kind, key, body)
        if why:
            raise RowRefused(f"a {kind} row is refused: {why}")
        self.batch.append((kind, key, body))
        self.state.apply(kind, key, body, self.clock())

    def _flush(self) -> int:
        if not self.batch:
            return 0
        rows = self.record.append_many(self.batch, checked=True)  # each checked by `emit`
        self.batch = []
        self._fold_new({r.id for r in rows})
        return len(rows)

    # ---- what the node calls -------------------------------------------------

    def admit(
        self,
        definition: BoundLike | Plan,
        ask: str,
        convener: str,
        inputs: dict[str, str] | None = None,
    ) -> Admitted:
        """Admit an execution of a bound definition under `ask` (idempotent by ask)."""
        self._fold_new()
        if self.state.seen_ask(ask):
            seen = self._admitted_under(ask)
            if seen is not None:
                return seen
        refused = check_inputs(definition, inputs)
        if refused:
            return Admitted(refused=refused)
        plan = definition if isinstance(definition, Plan) else plan_of(definition)
        task = self._mint()
        body = {"ask": ask, "convener": convener, "definition": plan.name}
        self.emit(
            kinds.WORKFLOW_ADMITTED, task, {**body, "inputs": inputs or {}, "plan": plan.as_json()}
        )
        self.emit(kinds.TASK_BORN, task, {"summary": f"{plan.name}: {plan.summary}"})
        return Admitted(task, True)

    def _mint(self) -> str:
        """The next root id no body of the record has claimed: `t<N>` past the highest
        the record holds, each N claimed in memory for good (`task/t<N>`, the
        writer's holder), so two bodies folding the same record never both take
        it. An N another body claimed is skipped (docs/engine.md). A record with
        no remote has one body (the clone's), so nothing is claimed there."""
        shared = self.record.remote() is not None
        n = self.state.top_root
        while True:
            n += 1
            task = ids.root_id(n)
            if task in self.state.tasks:
                continue
            if not shared or self.memory.take(f"task/{task}", self.holder, MINT_TTL_S):
                return task

    def admit_from(self, catalog: Any, definition: str, ask: str, convener: str,
                   inputs: dict[str, str] | None = None) -> Admitted:  # fmt: skip
        """Bind the newest revision of `definition` from a catalog and admit it."""
        seen = self._admitted_under(ask) if self.state.seen_ask(ask) else None
        if seen is not None:
            return seen
        try:
            bound = catalog.bind(definition, None, inputs)
        except errors.Refused as refusal:
            return Admitted(refused=refusal.reason)
        return self.admit(bound, ask, convener, inputs)

    def _admitted_under(self, ask: str) -> Admitted | None:
        """The admission an ask already has: a root held, or one settled and
        forgotten, read back from the record (None when its digest misled)."""
        task = self.state.asks.get(ask)
        if task is None:
            row = self.record.admission(ask)
            task = row.key if row is not None else None
        return Admitted(task) if task is not None else None

    def reply(self, attempt: str, performer: str, outcome: str, detail: str = "") -> None:
        """A performer's answer, taken in the next round."""
        self.inbox.append((attempt, performer, Answer(outcome, detail)))

    def cancel(self, task: str, by: str = "") -> str:
        """Cancel a root: fence everything below it. Returns why not, or ""."""
        self._fold_new()
        t = self.state.tasks.get(task)
        if t is None:
            settled = self.settled(task)
            if settled and ids.root_of(task) != task:
                return f"{task} is a child task; only a root is cancelled"
            return f"{task} has settled {settled}" if settled else f"no task {task}"
        if t.parent is not None:
            return f"{task} is a child task; only a root is cancelled"
        if t.outcome is not None:
            return f"{task} has settled {t.outcome}"
        if t.halt != CANCELLED:
            self.emit(kinds.WORKFLOW_CANCELLED, task, {"by": by})
        return ""

    def step(self) -> int:
        """One round; the number of rows written.

        When the record or memory fails mid-round, the rows decided but not
        written were applied to the state already: the state is folded again
        (from the newest checkpoint, `restart`, so it holds only what
        was written) before the error rises. A task whose advance raises (its
        admission was poison the fold could not see: a plan the engine cannot
        run) is stuck: its admission is reported as poison, the state is
        folded again, and the round runs again without it.
        """
        while True:
            inbox = list(self.inbox)
            try:
                self._fold_new()
                self._reconcile()
                self._take_replies()
                self._advance_dirty()
                self._claim()
                self._announce_exhaustion()
                written = self._flush()
            except Stuck as stuck:
                self._told.clear()
                self._stick(stuck.task, stuck.why)
                self.resume(self.restart())
                self.inbox = inbox
                continue
            except Exception:
                self._told.clear()
                self.resume(self.restart())
                raise
            break
        # a delivery that reaches out runs with the hold let go: others read and append
        with self.record.unheld() if self._reaches_out() else contextlib.nullcontext():
            self._tell()
            self._deliver()
        return written

    def take_poison(self) -> dict[str, tuple[str, str]]:
        """The rows found poison since the last call: row id -> (kind, why)."""
        found = {**self.state.poison, **self._poison}
        self.state.poison.clear()
        self._poison.clear()
        return found

    def _stick(self, task: str, why: str) -> None:
        self.stuck.add(task)
        for r in self.record.rows(kind=kinds.WORKFLOW_ADMITTED, key=task):
            self._poison[r.id] = (r.kind, why)
            return

    def pump(self, max_rounds: int = 1000) -> int:
        """Rounds until nothing moves; the rows written. A round that wrote rows
        but left nothing to take, decide, claim or deliver ends the pump too:
        one more round would only look at the record again, which the next
        pump does first (a performer's own rows come with its answer, which
        waits in the inbox)."""
        total = 0
        with self.record.held():  # the rounds' rows reach git as one commit (record.py)
            for _ in range(max_rounds):
                written = self.step()
                total += written
                if not (self.inbox or self.batch) and (not written or not self._moving()):
                    break
        return total

    def _reaches_out(self) -> bool:
        """Whether this round's delivery may take time or tell another process what
        its rows say: the Board, or a performer that is not `inline` (a call out,
        a process that reads the record from git). Then the held rows are published
        and the hold let go while it runs (record.py, `held`)."""
        if self._told and self.tell_board is not None:
            return True
        performer = self.performers.get
        return any(not getattr(performer(a.performer), "inline", False) for a in self.to_deliver)

    def _moving(self) -> bool:
        """Whether the next round has work this engine already holds."""
        return bool(self.state.dirty or self.unclaimed or self.to_deliver or self.to_reconcile)

    def settled(self, task: str) -> str | None:
        """The task's outcome once settled (read back from the record when its
        root has left the state), else None."""
        t = self.state.tasks.get(task)
        if t is not None:
            return t.outcome
        if (
            task not in self.state.roots_settled
            and ids.root_of(task) not in self.state.roots_settled
        ):
            return None
        rows = self.record.rows(kind=kinds.WORKFLOW_SETTLED, key=task)
        rows = [r for r in rows if not self.record.stale(r)]  # the epoch rule
        return str(rows[0].body.get("outcome")) if rows else None

    # ---- claims, delivery and replies ----------------------------------------

    def _claim(self) -> None:
        waiting, self.unclaimed = self.unclaimed, []
        todo = [a for a in waiting if a.outcome is None and not a.claimed]
        if not todo:
            return
        grants = self.memory.take_many([a.id for a in todo], self.holder, CLAIM_TTL_S)
        for a, grant in zip(todo, grants, strict=True):
            if grant is None:
                self.unclaimed.append(a)  # held elsewhere: try again next round
                continue
            self.emit(kinds.ATTEMPT_CLAIMED, a.id, {"holder": self.holder, "token": grant.token})
            self.to_deliver.append(a)

    def _work(self, a: Attempt) -> Work:
        leaf = a.unit.leaf
        return Work(
            a.id, ids.task_of(a.id), leaf.objective, leaf.requires, a.performer,
            a.token, self.ceiling, tuple(a.facts),
        )  # fmt: skip

    def _deliver(self) -> None:
        todo, self.to_deliver = self.to_deliver, []
        for a in todo:
            if a.outcome is not None:
                continue
            performer = self.performers.get(a.performer)
            if performer is None:
                result: Answer | Pending | Unsure = Answer(
                    FAILED, f"no performer {a.performer} is provided"
                )
            else:
                if self.record.guard is not None:
                    self.record.guard()  # the lease and its epoch, right before the effect
                try:
                    result = performer.deliver(self._work(a), self.ctx)
                except Exception as exc:  # a performer's fault fails its attempt, not the engine
                    result = Answer(FAILED, f"the {a.performer} failed: {exc}")
            self.inbox.append((a.id, a.performer, result))

    def _reconcile(self) -> None:
        todo, self.to_reconcile = self.to_reconcile, []
        for a in todo:
            if a.outcome is not None:
                continue
            performer = self.performers.get(a.performer)
            verdict = performer.reconcile(self._work(a), self.ctx) if performer else Reconciled("")
            if verdict.verdict == ACTED:
                if verdict.answer is not None:
                    self.inbox.append((a.id, a.performer, verdict.answer))
            elif verdict.verdict == NOT_ACTED:
                self.emit(kinds.EFFECT_REDELIVERED, a.id, {"performer": a.performer})
                self.to_deliver.append(a)
            else:
                self._unresolved(a, verdict.why)

    def _unresolved(self, a: Attempt, why: str) -> None:
        """The attempt waits for a person: its performer cannot say whether it acted."""
        if a.unresolved:
            return
        body = {"performer": a.performer, "resolve": RESOLVE.format(a.id)}
        if why:
            body["why"] = why
        self.emit(kinds.EFFECT_UNRESOLVED, a.id, body)

    def _journal(self, kind: str, attempt: str, body: dict[str, Any]) -> None:
        """A performer's own row about an attempt it holds, appended now (it is
        folded as another writer's row at the next round)."""
        self.record.append(kind, attempt, body)

    def _take_replies(self) -> None:
        inbox, self.inbox = self.inbox, []
        for attempt, performer, result in inbox:
            self._take(attempt, performer, result)

    def _take(self, attempt: str, performer: str, result: Answer | Pending | Unsure) -> None:
        a = self.state.attempts.get(attempt)
        if a is None and self.state.forgotten(attempt):
            return  # its root has settled: an answer now changes nothing, as for any settled one
        if a is None or performer != a.performer:
            why = "nobody's: " + (
                f"the attempt was admitted to the {a.performer}"
                if a
                else "there is no such attempt"
            )
            body = {"from": performer, "admitted_to": a.performer if a else "", "why": why}
            self.emit(kinds.REPLY_REFUSED, attempt, body)
            return
        if a.outcome is not None:
            return  # a repeat of an answer already recorded changes nothing
        for kind, body in result.facts:
            self.emit(kind, attempt, body)
        if isinstance(result, Unsure):
            self._unresolved(a, result.why)
            return
        if isinstance(result, Pending):
            return
        for call in result.calls:
            self.emit(kinds.MODEL_CALLED, attempt, _call_body(call))
        self.emit(kinds.ATTEMPT_OUTCOME, attempt, _outcome_body(a, result))

    # ---- the budget ----------------------------------------------------------

    def _admit_spend(self, ceiling: int) -> Any:
        return self.state.budget.admit(ceiling, self.clock())

    def _note_call(self, call: ModelCall) -> None:
        self.state.budget.note(self.clock(), call.micros, call.call)

    def _announce_exhaustion(self) -> None:
        budget = self.state.budget
        window = budget.exhausted(self.clock())
        if window is not None:
            body = budget.exhausted_body(window)
            self.emit(kinds.BUDGET_EXHAUSTED, f"budget/{window}", body)
            self._told.append(body)

    def _tell(self) -> None:
        told, self._told = self._told, []
        if self.tell_board is not None:
            for body in told:
                self.tell_board(body)


def _policy(policy: BudgetPolicy) -> tuple[str, int]:
    return (policy.window, policy.allowance_micros)


def _call_body(call: ModelCall) -> dict[str, Any]:
    return {"call": call.call, "model": call.model, "micros": call.micros, "answer": call.answer}


def _outcome_body(a: Attempt, result: Answer) -> dict[str, Any]:
    body: dict[str, Any] = {
        "outcome": result.outcome,
        "performer": a.performer,
        "detail": result.detail,
    }
    if result.resolved_by:
        body["resolved_by"] = result.resolved_by
    if result.grant is not None:
        spent = sum(c.micros for c in result.calls)
        body["grant_micros"], body["spent_micros"] = result.grant, spent
        if spent > result.grant:
            body["outcome"] = FAILED
            body["detail"] = f"overran its grant: spent {spent} of {result.grant} micro-dollars"
    return body
