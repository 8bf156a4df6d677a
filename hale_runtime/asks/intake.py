"""The organization's intake: each relayed `intent.requested` admitted once.

`offer_many(asks)` folds the rows since it last looked, then answers each
intent once by its id: one already offered or refused, or in planning here, gets
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
word is journaled (a later holder binds one journaled as `model.called
plan/<intent>` and never asks again, even one the epoch rule voids, since
that call was made and paid for; a holder whose claim ran out while its word
was out binds that word when it takes the claim again), then bound into the admission
(leader.py) once the claim is still ours: `intent.offered`,
`workflow.admitted` and `task.born`.

One push a round: the organization's loop hands every ask it heard in a
round over at once (`hear`, then `tick`). Each takes its own claim; one
pull (fetch and rebase, no push) then shows what other bodies answered;
every answer of the round, and every word come back from the Leader (the
offline one answers at once), is written inside one hold of the record (one
commit) and pushed with one sync (`flush`). Only once that push landed are
the round's claims given back; a push that does not land keeps them until
they run out, so no answer is ever given twice. `offer(ask)` is the same for
one ask.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hale_runtime import figures
from hale_runtime.asks.leader import Ask, Brief, Decision, decide, parse, prompt
from hale_runtime.engine.plan import check_inputs
from hale_runtime.errors import one_line
from hale_runtime.memory import Fenced, Grant, MemoryFailed
from hale_runtime.nerves import NervesFailed
from hale_runtime.owners import filled_position
from hale_runtime.performers import ModelCall, ModelProvider
from hale_runtime.record import RecordError, kinds
from hale_runtime.record.follow import Follower
from hale_runtime.seen import Seen

PLAN_TTL_S = 300.0
OFFERED, REFUSED = kinds.INTENT_OFFERED, kinds.INTENT_REFUSED
GATE = "refused: the Board's gate admits no empty ask"
WORD_PAUSE_ENV = "HALE_DNA_TEST_WORD_PAUSE"  # test hook: seconds between the word and admitting
SPINE = (NervesFailed, MemoryFailed, Fenced, RecordError)  # what stops the organization
BATCH = 200  # asks answered in one round at most: the rest wait for the next push
WORD_WAIT_S = 0.2  # how long a round waits for the Leader's words before pushing without them


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
                 sync: Callable[[], object] | None = None,
                 pull: Callable[[], object] | None = None):  # fmt: skip
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
        self.pull = pull  # the remote's rows in, nothing pushed (None: a whole sync)
        self.heard: dict[str, tuple[Ask, str]] = {}  # intent -> (ask, its row): this round's
        self.releasing: list[tuple[str, Grant, bool]] = []  # claims to give back once pushed
        self.dirty = False  # a word was journaled: the round's push carries it
        self.poison: dict[str, tuple[str, str]] = {}  # ask rows whose answering raised
        self.out: list[tuple[str, str, dict[str, Any]]] | None = None  # a batch's rows
        self.word_pause_s = float(os.environ.get(WORD_PAUSE_ENV) or 0)  # a test's hook

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
        """One relayed ask answered at once: what became of it."""
        ask, _ = _ask_of(message)
        return self._said(self.offer(ask))

    def hear(self, message: Any) -> None:
        """The IntentRequested subscription in the organization's loop: the ask waits
        for the round's one batch (`tick`)."""
        ask, row = _ask_of(message)
        self.heard.setdefault(ask.intent, (ask, row))

    def _said(self, said: str) -> str:
        if said.startswith(("planning elsewhere", "not ours", "not answering")) and (
            said not in self.said
        ):
            self.said.add(said)  # said once: the relay brings the ask back
            self.say(said)
        return said

    def offer(self, ask: Ask) -> str:
        """Answer the ask once: `offered: t1`, `refused: …`, or why nothing was written."""
        return self.offer_many([(ask, "")]).get(ask.intent, "answered before")

    def offer_many(self, asks: list[tuple[Ask, str]]) -> dict[str, str]:
        """Answer every ask once, in one batch pushed once; what became of each, by intent."""
        self.read()
        said: dict[str, str] = {}
        claimed: list[tuple[Ask, Grant, str]] = []
        for ask, row in asks:
            if ask.intent in said or any(c[0].intent == ask.intent for c in claimed):
                continue
            why = self._not_now(ask)
            if why:
                said[ask.intent] = why
                continue
            key = f"plan/{ask.intent}"
            grant = self.memory.take(key, self.holder, self.plan_ttl_s)
            if grant is None:
                held = self.memory.claim(key)
                said[ask.intent] = (
                    f"planning elsewhere: {held.holder if held else 'another node'} holds {key}"
                )
                continue
            claimed.append((ask, grant, row))
        if claimed:
            said.update(self._answer_claimed(claimed))
        self.flush()
        return said

    def _not_now(self, ask: Ask) -> str:
        """Why the ask gets nothing now ("" to claim it)."""
        if not ask.intent or ask.intent in self.answered:
            return "answered before"
        if ask.intent in self.planning and self._still_planning(ask.intent):
            return f"in planning: the Leader's word on {ask.intent} is out"
        owner = self.owners.get(ask.position) or ask.owner
        if self.owner and owner != self.owner:
            whose = f"owner {owner}'s" if owner else "owned by no organization"
            return f"not ours: {ask.position} is {whose}; {self.owner} admits nothing for it"
        return ""

    def _answer_claimed(self, claimed: list[tuple[Ask, Grant, str]]) -> dict[str, str]:
        """Under their claims, once the remote's rows are in (the last holder pushed
        before releasing): every answer of the batch, in one commit."""
        said: dict[str, str] = {}
        try:
            (self.pull or self.sync)()
        except RecordError as error:
            for ask, grant, _ in claimed:
                self.memory.release(f"plan/{ask.intent}", self.holder, grant.token)
                said[ask.intent] = (
                    f"not answering {ask.intent} yet: the record did not sync: {error}"
                )
            return said
        self.read()
        with self._batch():
            for ask, grant, row in claimed:
                if ask.intent in self.answered:  # another body answered and pushed it
                    self.memory.release(f"plan/{ask.intent}", self.holder, grant.token)
                    said[ask.intent] = "answered before"
                    continue
                try:
                    said[ask.intent] = self._decide(ask, grant)
                except SPINE:
                    raise
                except Exception as error:  # the ask's content made it raise: poison
                    said[ask.intent] = f"not answering {ask.intent}: {one_line(error)}"
                    if row:
                        self.poison[row] = (kinds.INTENT_REQUESTED, one_line(error))
            self._await_words()
        return said

    @contextmanager
    def _batch(self) -> Iterator[None]:
        """The rows the intake writes inside go out as one append (one fdatasync, one
        commit), and the engine then runs once for every admission made inside."""
        if self.out is not None:
            yield
            return
        self.out = []
        try:
            yield
        finally:
            out, self.out = self.out, None
            with self.record.held():
                if out:
                    self.record.append_many(out)
                self.engine.pump()

    def _append(self, kind: str, key: str, body: dict[str, Any]) -> None:
        if self.out is not None:
            self.out.append((kind, key, body))
        else:
            self.record.append(kind, key, body)

    def take_poison(self) -> dict[str, tuple[str, str]]:
        """The ask rows whose answering raised (the organization quarantines them)."""
        poison, self.poison = self.poison, {}
        return poison

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
        """An answer written without planning: the claim is given back once the round's
        push landed (no claim row was written for it)."""
        self.releasing.append((f"plan/{ask.intent}", grant, False))
        return said

    def tick(self) -> list[str]:
        """Answer the asks heard this round (one batch), finish every planning whose
        word has come, and push it all once; what became of each planning."""
        taken = list(self.heard)[:BATCH]
        heard = [self.heard.pop(intent) for intent in taken]
        began = time.monotonic()
        for said in self.offer_many(heard).values() if heard else ():
            self._said(said)
        if heard:
            figures.note("round", asks=len(heard), ms=round((time.monotonic() - began) * 1000))
        late, waiting = [], []
        for p in self.late:
            (late if p.future.done() else waiting).append(p)
        self.late = waiting
        done = [i for i, p in self.planning.items() if p.future.done()]
        with self._batch():
            finished = [self._finish(p) for p in late + [self.planning.pop(i) for i in done]]
        self.flush()
        return finished

    def _await_words(self) -> None:
        """Wait a moment for the words just asked (an offline Leader answers at once),
        and bind the ones come, so they go out with this round's push."""
        futures = [p.future for p in self.planning.values()]
        if futures:
            wait(futures, timeout=WORD_WAIT_S)
        for intent in [i for i, p in self.planning.items() if p.future.done()]:
            self._finish(self.planning.pop(intent))

    def flush(self) -> None:
        """Push what the round wrote, once; then give its claims back (a push that did
        not land keeps them until they run out)."""
        if not (self.releasing or self.dirty):
            return
        releasing, self.releasing, self.dirty = self.releasing, [], False
        if not self._pushed():
            return
        with self._batch():  # the release rows: one append, with the next push
            for key, grant, with_row in releasing:
                if with_row:
                    self._release(key, grant)
                else:
                    self.memory.release(key, self.holder, grant.token)

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
        self._append(kinds.CLAIM_TAKEN, key, body)
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
            self._test_pause()
        try:
            self.memory.check_fence(key, p.grant.token)
        except Fenced as fenced:
            return f"not admitting {ask.intent}: {fenced}"
        said = self._admit(ask, decide(ask, parse(self.words.get(ask.intent, ""))))
        return self._given_back(key, p.grant, said)

    def _given_back(self, key: str, grant: Grant, said: str) -> str:
        """The answer is written: the claim is given back once the round's push landed.
        A claim given back before the answer lands would let the ask be answered
        again elsewhere."""
        self.releasing.append((key, grant, True))
        return said

    def _pushed(self) -> bool:
        """Sync the answers to the remote; whether they landed (else the claims run out)."""
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
        self._append(kinds.MODEL_CALLED, f"plan/{ask.intent}", body)
        self.words[ask.intent] = answer
        self.dirty = True  # the word travels with the round's push: a later holder binds it

    def _test_pause(self) -> None:
        """Test hook (WORD_PAUSE_ENV): the word lands at the remote alone, then this
        body waits, so a takeover finds a word journaled and no admission."""
        if not self.word_pause_s:
            return
        if self.out:
            with self.record.held():
                self.record.append_many(self.out)
            self.out = []
        self.sync()
        time.sleep(self.word_pause_s)

    def _release(self, key: str, grant: Grant) -> None:
        if self.memory.release(key, self.holder, grant.token):
            self._append(kinds.CLAIM_RELEASED, key, {"holder": self.holder})

    # ---- answering -----------------------------------------------------------------

    def _budget_admit(self) -> Any:
        self.engine.catch_up()  # the Budget sees every model.called row written so far
        return self.engine.state.budget.admit(self.engine.ceiling, self.engine.clock())

    def _refuse(self, ask: Ask, reason: str) -> str:
        self._append(REFUSED, ask.intent, {"reason": reason})
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
        if self.out is None:  # in a batch, the engine runs once for all (`_batch`)
            self.engine.pump()
        self.answered.add(ask.intent)
        return f"offered: {admitted.task}"


def _ask_of(message: Any) -> tuple[Ask, str]:
    """The ask a relayed `intent.requested` message carries, and its row's id."""
    body = message.body
    ask = Ask.from_body(str(body.get("key", "")), body.get("body") or {}, body.get("who", ""))
    return ask, str(body.get("row") or "")
