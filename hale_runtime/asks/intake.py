"""The organization's intake: each relayed `intent.requested` admitted once.

`offer(ask)` folds the rows since it last looked, then answers an intent
once by its id: one already offered or refused, or in planning here, gets
nothing more. Otherwise, in order: the owner (over a shared record, only
the organization owning the position the ask is for admits it; any other
writes nothing), the intent's claim `plan/<intent>` in memory (every
answer is written under it, planned or not, so two bodies never answer one
intent at once: a claim that does not land writes nothing and answers
`planning elsewhere: …`), the record (synced and folded once the claim
landed: an answer another body pushed settles the ask, whatever claim
expired or was released since, since a holder pushes its answer before it
gives the claim back), the Board's gate (an empty ask is refused), the
budget (the one Budget's gate; an exhausted window refuses with its text),
then, when the Leader plans, a `claim.taken` row and the Leader asked on
the executor, so the organization keeps hearing while the word is out. The
word is journaled and pushed at once (a later holder binds one journaled as
`model.called plan/<intent>` and never asks again, even one the epoch rule
voids, since that call was made and paid for; a holder whose claim ran out
while its word was out binds that word when it takes the claim again),
then bound into the
admission (leader.py) once the claim is still ours: `intent.offered`,
`workflow.admitted` and `task.born` go out as the engine's one commit. Any
answer, planned or not, is pushed, and only then is the claim given back;
one that does not land keeps the claim until it runs out.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from hale_runtime.asks.leader import Ask, Brief, Decision, decide, parse, prompt
from hale_runtime.engine.plan import check_inputs
from hale_runtime.memory import Fenced, Grant
from hale_runtime.owners import filled_position
from hale_runtime.performers import ModelCall, ModelProvider
from hale_runtime.record import kinds
from hale_runtime.record.follow import Follower
from hale_runtime.seen import Seen

PLAN_TTL_S = 300.0
OFFERED, REFUSED = kinds.INTENT_OFFERED, kinds.INTENT_REFUSED
GATE = "refused: the Board's gate admits no empty ask"
WORD_PAUSE_ENV = "HALE_DNA_TEST_WORD_PAUSE"  # test hook: seconds between the word and admitting


@dataclass
class Planning:
    ask: Ask
    grant: Grant
    future: Future


class Inline(Executor):
    """An executor that runs each call at once (tests, and a node that wants no thread)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except Exception as error:  # the provider's failure travels in the future
            done.set_exception(error)
        return done


class Intake:
    def __init__(self, record: Any, memory: Any, engine: Any, catalog: Any, *,
                 leader: bool, brief: Callable[[], Brief], provider: ModelProvider,
                 holder: str, owner: str | None = None, executor: Executor | None = None,
                 plan_ttl_s: float = PLAN_TTL_S, say: Callable[[str], None] | None = None,
                 sync: Callable[[], object] | None = None):  # fmt: skip
        self.record, self.memory, self.engine, self.catalog = record, memory, engine, catalog
        self.leader, self.brief, self.provider = leader, brief, provider
        self.holder, self.owner, self.plan_ttl_s = holder, owner or None, plan_ttl_s
        self.executor = executor or ThreadPoolExecutor(2, thread_name_prefix="leader")
        self.say = say or (lambda line: print(f"hale asks: {line}", file=sys.stderr, flush=True))
        self.answered = Seen()  # intents offered or refused
        self.owners: dict[str, str] = {}  # position -> the owner the record names
        self.words: dict[str, str] = {}  # intent not yet answered -> the Leader's journaled answer
        self.planning: dict[str, Planning] = {}
        self.late: list[Planning] = []  # words still out on claims that expired
        self.said: set[str] = set()
        self.follower = Follower(record, stale=True)  # a superseded body's word is bound
        self.sync = sync or (lambda: None)  # the record with its remote (raises RecordError)

    # ---- the fold ----------------------------------------------------------------

    @property
    def cursor(self) -> int:
        """The seq read to (the checkpointer's question)."""
        return self.follower.seq

    def catch_up(self) -> None:
        """Read to the record's tip (before a checkpoint)."""
        self.read()

    def read(self) -> None:
        """Take in the rows written since the last read."""
        stale = self.record.stale
        for row in self.follower.new_rows():
            if row.kind == kinds.MODEL_CALLED and row.key.startswith("plan/"):
                self._word(row)  # bound even when void: the call was made, and paid for
            elif stale(row):
                continue  # the epoch rule: a superseded body's row counts for nothing
            elif row.kind in (OFFERED, REFUSED):
                self.answered.add(row.key)
                self.words.pop(row.key, None)  # answered: no decision reads its word again
            elif row.kind == kinds.POSITION_FILLED and row.body.get("owner"):
                self.owners[filled_position(row.key, row.body)] = str(row.body["owner"])

    def _word(self, row: Any) -> None:
        """The Leader's journaled word on an intent not yet answered: a later holder
        binds it (`_plan`) rather than ask again. A row the epoch rule voids is
        bound too: its body lost the lease after the call, not before it, and
        the word is the same whoever journaled it."""
        intent = row.key.removeprefix("plan/")
        if intent not in self.answered and intent not in self.words:
            self.words[intent] = str(row.body.get("answer", ""))

    def snapshot(self) -> dict[str, Any]:
        """The intake's fold as plain data (a checkpoint's part)."""
        return {
            "answered": self.answered.to_bytes(),
            "owners": dict(self.owners),
            "words": dict(self.words),
        }

    def restore(self, seq: int, data: dict[str, Any]) -> None:
        """Stand where a checkpoint at `seq` stood; `read` goes on from there."""
        self.answered = Seen.from_bytes(data["answered"])
        self.owners, self.words = dict(data["owners"]), dict(data["words"])
        self.follower = Follower(self.record, seq)

    # ---- what the organization calls ----------------------------------------------

    def on_intent_requested(self, message: Any) -> str:
        """The IntentRequested subscription: what became of the relayed ask."""
        body = message.body
        ask = Ask.from_body(str(body.get("key", "")), body.get("body") or {}, body.get("who", ""))
        said = self.offer(ask)
        if said.startswith(("planning elsewhere", "not ours", "not answering")) and (
            said not in self.said
        ):
            self.said.add(said)  # said once: the relay brings the ask back every tick
            self.say(said)
        return said

    def offer(self, ask: Ask) -> str:
        """Answer the ask once: `offered: t1`, `refused: …`, or why nothing was written."""
        self.read()
        if not ask.intent or ask.intent in self.answered:
            return "answered before"
        if ask.intent in self.planning and self._still_planning(ask.intent):
            return f"in planning: the Leader's word on {ask.intent} is out"
        owner = self.owners.get(ask.position) or ask.owner
        if self.owner and owner != self.owner:
            whose = f"owner {owner}'s" if owner else "owned by no organization"
            return f"not ours: {ask.position} is {whose}; {self.owner} admits nothing for it"
        key = f"plan/{ask.intent}"
        grant = self.memory.take(key, self.holder, self.plan_ttl_s)
        if grant is None:
            held = self.memory.claim(key)
            return f"planning elsewhere: {held.holder if held else 'another node'} holds {key}"
        stale = self._answered_at_remote(ask.intent)  # the last holder pushed before releasing
        if stale:
            self.memory.release(key, self.holder, grant.token)
            return stale
        return self._decide(ask, grant)

    def _decide(self, ask: Ask, grant: Grant) -> str:
        """Under the intent's claim, with the record synced: refuse, admit, or plan."""
        if not ask.objective:
            return self._at_once(ask, grant, self._refuse(ask, GATE))
        admission = self._budget_admit()
        if admission.refused:
            return self._at_once(ask, grant, self._refuse(ask, admission.refused))
        if ask.judgment or ask.to or not self.leader:
            return self._at_once(ask, grant, self._admit(ask, decide(ask, None)))
        return self._plan(ask, grant, admission.granted)

    def _at_once(self, ask: Ask, grant: Grant, said: str) -> str:
        """An answer written without planning: pushed, and only then the claim given back
        (no claim row was written for it)."""
        if self._pushed():
            self.memory.release(f"plan/{ask.intent}", self.holder, grant.token)
        return said

    def tick(self) -> list[str]:
        """Finish every planning whose word has come; what became of each."""
        late, waiting = [], []
        for p in self.late:
            (late if p.future.done() else waiting).append(p)
        self.late = waiting
        done = [i for i, p in self.planning.items() if p.future.done()]
        return [self._finish(p) for p in late + [self.planning.pop(i) for i in done]]

    def _answered_at_remote(self, intent: str) -> str:
        """Sync, then fold: why not to answer `intent` ("" to go on). The record decides,
        whatever claim expired or was released since, so an offer another body
        wrote and pushed settles it; a record that did not sync decides nothing."""
        from hale_runtime.record import RecordError

        try:
            self.sync()
        except RecordError as error:
            return f"not answering {intent} yet: the record did not sync: {error}"
        self.read()
        return "answered before" if intent in self.answered else ""

    def _still_planning(self, intent: str) -> bool:
        """Whether our claim on the planning is live; an expired one's word is late."""
        p = self.planning[intent]
        try:
            self.memory.check_fence(f"plan/{intent}", p.grant.token)
        except Fenced:
            self.late.append(self.planning.pop(intent))  # journaled when it comes, not admitted
            return False
        return True

    # ---- planning ------------------------------------------------------------------

    def _plan(self, ask: Ask, grant: Grant, granted: int) -> str:
        key = f"plan/{ask.intent}"
        body = {"holder": self.holder, "token": grant.token, "until": grant.until}
        self.record.append(kinds.CLAIM_TAKEN, key, body)
        out = next((p for p in self.late if p.ask.intent == ask.intent), None)
        if ask.intent in self.words:  # a previous holder's word is in the record
            future: Future = Future()
            future.set_result(None)
        elif out is not None:  # our own word, asked under a claim that ran out: still ours
            self.late.remove(out)
            future = out.future
        else:
            text = prompt(self.brief(), ask)
            price = self.provider.price(text)
            if price is not None and price > granted:
                why = f"refused: planning costs {price} micro-dollars, past the {granted} left"
                return self._given_back(key, grant, self._refuse(ask, why))
            future = self.executor.submit(self.provider.complete, text)
        self.planning[ask.intent] = Planning(ask, grant, future)
        if future.done():
            return self._finish(self.planning.pop(ask.intent))
        return f"in planning: {key} taken, the Leader asked"

    def _finish(self, p: Planning) -> str:
        ask, key = p.ask, f"plan/{p.ask.intent}"
        try:
            called = p.future.result()
        except Exception as error:  # the provider failed: a row says so, nothing retries
            why = f"refused: the Leader could not be asked: {error}"
            return self._given_back(key, p.grant, self._refuse(ask, why))
        if called is not None:
            self._journal(ask, p.grant, *called)
            time.sleep(float(os.environ.get(WORD_PAUSE_ENV) or 0))  # a takeover lands here
        try:
            self.memory.check_fence(key, p.grant.token)
        except Fenced as fenced:
            return f"not admitting {ask.intent}: {fenced}"
        said = self._admit(ask, decide(ask, parse(self.words.get(ask.intent, ""))))
        return self._given_back(key, p.grant, said)

    def _given_back(self, key: str, grant: Grant, said: str) -> str:
        """The answer is written: push it, then give the claim back. A claim given back
        before the answer lands would let the ask be answered again elsewhere."""
        if self._pushed():
            self._release(key, grant)
        return said

    def _pushed(self) -> bool:
        """Sync the answer to the remote; whether it landed (else the claim runs out)."""
        from hale_runtime.record import RecordError

        try:
            self.sync()
        except RecordError as error:
            self.say(f"not yet at the remote, so the plan claim runs out: {error}")
            return False
        return True

    def _journal(self, ask: Ask, grant: Grant, answer: str, micros: int) -> None:
        call = ModelCall(f"plan/{ask.intent}#{grant.token}", self.provider.name, micros, answer)
        self.engine.state.budget.note(self.engine.clock(), micros, call.call)
        body = {"call": call.call, "model": call.model, "micros": micros, "answer": answer}
        self.record.append(kinds.MODEL_CALLED, f"plan/{ask.intent}", body)
        self.words[ask.intent] = answer
        self._pushed()  # the word travels first: a later holder binds it, never asks again

    def _release(self, key: str, grant: Grant) -> None:
        if self.memory.release(key, self.holder, grant.token):
            self.record.append(kinds.CLAIM_RELEASED, key, {"holder": self.holder})

    # ---- answering -----------------------------------------------------------------

    def _budget_admit(self) -> Any:
        self.engine.catch_up()  # the Budget sees every model.called row written so far
        return self.engine.state.budget.admit(self.engine.ceiling, self.engine.clock())

    def _refuse(self, ask: Ask, reason: str) -> str:
        self.record.append(REFUSED, ask.intent, {"reason": reason})
        self.answered.add(ask.intent)
        return reason

    def _admit(self, ask: Ask, decision: Decision) -> str:
        from hale_runtime.catalog import Refused

        if self.catalog is None:
            return self._refuse(ask, "refused: the organization has no catalog to admit it by")
        inputs = {"objective": decision.objective}
        try:
            bound = self.catalog.bind(decision.definition, None, inputs)
        except Refused as refused:
            return self._refuse(ask, f"refused: {refused.reason}")
        why = check_inputs(bound, inputs)
        if why:
            return self._refuse(ask, f"refused: {why}")
        d = bound.definition
        self.engine.emit(OFFERED, ask.intent, {"definition": f"{d.id}@{d.rev}", **decision.body})
        admitted = self.engine.admit(bound, ask.intent, ask.by or ask.intent, inputs)
        self.engine.pump()
        self.answered.add(ask.intent)
        return f"offered: {admitted.task}"
