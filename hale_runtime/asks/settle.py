"""The organization's side of a leg's asks: its allowance and its outcome.

The head writes `attempt.allowance.requested` and `attempt.outcome.requested`
under the attempt's id; a node relays them, and the Settler answers each
once by that id (a relay repeated after a lost answer finds the answer in
the record). An allowance passes the one Budget gate with the engine's cost
ceiling: the grant, or the refusal's text (and a `budget.refused` fact).
An outcome is handed to the engine as the leg performer's reply, with the
model calls the leg reports and the grant it was given, so the engine
journals every call and settles an attempt that spent past its grant as
failed, naming the overrun. A leg that called without asking its
allowance had a grant of nothing. `hale dna effect resolve` asks through
the same kind, each ask under its own key, `<attempt>#<n>` (its body says
`resolved_by`, the person, and may carry a `note`), so a refused resolve
answers only itself and the next person's is relayed and answered: it is
settled the same way for an attempt of any performer that waits for a
person (a case on the Board's queue, or an effect its performer could not
say happened), with `resolved_by` on the outcome, and refused for one that
does not, or whose outcome another resolve decided first. Who may resolve is one check, `may_resolve(person,
writer, attempt)`, that allows anyone until an authority check replaces it. Over a shared record (`owner`, the node's
HALE_DNA_OWNER) the Settler answers only for tasks its organization owns,
by the intake's rule, and writes nothing for any other: their owner does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hale_runtime.engine.ids import root_of
from hale_runtime.owners import Owners
from hale_runtime.performers import Answer, ModelCall
from hale_runtime.record import kinds
from hale_runtime.record.follow import Follower
from hale_runtime.seen import Seen

ALLOWANCE, OUTCOME = "attempt.allowance", kinds.ATTEMPT_OUTCOME
LEG_KINDS = frozenset({"agent"})
PERSON_NOTE = "resolved by a person"


def anyone_resolves(person: str, writer: str, attempt: Any) -> str:
    """Who may resolve an attempt waiting for a person: anyone (why not: "")."""
    return ""


class Settler:
    def __init__(self, record: Any, engine: Any, leg_kinds: frozenset[str] = LEG_KINDS,
                 owner: str | None = None):  # fmt: skip
        self.record, self.engine, self.leg_kinds = record, engine, leg_kinds
        self.owner, self.owners = owner or None, Owners()
        self.may_resolve: Callable[[str, str, Any], str] = anyone_resolves
        self.grants: dict[str, int] = {}  # attempt still out -> micro-dollars granted
        self.allowed = Seen()  # attempts whose allowance is answered
        self.settled = Seen()  # attempts whose outcome ask is answered
        self.follower = Follower(record)

    @property
    def cursor(self) -> int:
        """The seq read to (the checkpointer's question)."""
        return self.follower.seq

    def snapshot(self) -> dict[str, Any]:
        """The Settler's fold as plain data (a checkpoint's part)."""
        return {
            "owners": self.owners.snapshot(),
            "grants": dict(self.grants),
            "allowed": self.allowed.to_bytes(),
            "settled": self.settled.to_bytes(),
        }

    def restore(self, seq: int, data: dict[str, Any]) -> None:
        """Stand where a checkpoint at `seq` stood; `read` goes on from there."""
        self.owners = Owners.restore(data["owners"])
        self.grants = dict(data["grants"])
        self.allowed = Seen.from_bytes(data["allowed"])
        self.settled = Seen.from_bytes(data["settled"])
        self.follower = Follower(self.record, seq)

    def catch_up(self) -> None:
        """Read to the record's tip (before a checkpoint)."""
        self.read()

    def read(self) -> None:
        for row in self.follower.new_rows():
            self.owners.note(row.kind, row.key, row.body)
            if row.kind == f"{ALLOWANCE}.answered":
                self.allowed.add(row.key)
                if not row.body.get("refused"):
                    self.grants[row.key] = int(row.body.get("granted", 0))
            elif row.kind == f"{OUTCOME}.answered":
                self.settled.add(row.key)
                self.grants.pop(row.key, None)  # settled: its grant is read no more

    def _fold(self) -> None:
        self.engine.catch_up()

    def not_ours(self, key: str) -> str:
        """Why this organization answers nothing about `key`, an attempt or a
        task ("" when it is ours). A task the record never admitted is
        anyone's to answer about."""
        if not self.owner:
            return ""
        root = root_of(key)
        task = self.engine.state.tasks.get(root)
        if task is not None:
            ask = task.ask
        else:
            admitted = self.record.rows(kind=kinds.WORKFLOW_ADMITTED, key=root)
            if not admitted:
                return ""
            ask = str(admitted[0].body.get("ask", ""))
        owner = self.owners.of(ask)
        if owner == self.owner:
            return ""
        whose = f"owner {owner}'s" if owner else "owned by no organization"
        return f"not ours: {key} is {whose}; {self.owner} answers nothing for it"

    def _leg_attempt(self, attempt: str) -> tuple[Any, str]:
        """(the attempt, "") when it is a leg's and open, else (it or None, why not)."""
        a = self.engine.state.attempts.get(attempt)
        if a is None:
            return None, f"no attempt {attempt}"
        if a.performer not in self.leg_kinds:
            return a, f"{attempt} was admitted to the {a.performer}, not to a leg"
        return a, ""

    def _waiting_attempt(self, attempt: str) -> tuple[Any, str]:
        """(the attempt, "") when it waits for a person, else (it or None, why
        not). One whose execution settled is no longer in the engine's state:
        its root is folded from the record (a late ask is rare)."""
        a = self.engine.state.attempts.get(attempt)
        if a is None:
            from hale_runtime.engine.show import read_root

            a = read_root(self.record, attempt).attempts.get(attempt)
        if a is None:
            return None, f"no attempt {attempt}"
        if a.outcome is None and not a.waits_for_person:
            return a, f"{attempt} is not waiting for a person"
        return a, ""

    def on_allowance_requested(self, message: Any) -> str:
        """AttemptAllowanceRequested: grant the attempt's budget once; what was answered."""
        attempt = str(message.body.get("key", ""))
        self.read()
        if not attempt or attempt in self.allowed:
            return "answered before"
        self._fold()
        not_ours = self.not_ours(attempt)
        if not_ours:
            return not_ours
        a, why = self._leg_attempt(attempt)
        if not why and a.outcome is not None:
            why = f"{attempt} has settled {a.outcome}"
        if why:
            body: dict[str, Any] = {"granted": 0, "refused": f"refused: {why}"}
            self.record.append(f"{ALLOWANCE}.answered", attempt, body)
            return body["refused"]
        adm = self.engine.state.budget.admit(self.engine.ceiling, self.engine.clock())
        body = {"granted": adm.granted, "refused": adm.refused, "window": adm.window}
        rows = [(f"{ALLOWANCE}.answered", attempt, body)]
        if adm.refused:
            rows.append((kinds.BUDGET_REFUSED, attempt, {"text": adm.refused}))
        self.record.append_many(rows)
        self.read()
        return adm.refused or f"granted {adm.granted}"

    def on_outcome_requested(self, message: Any) -> str:
        """AttemptOutcomeRequested: the leg's outcome, or a person's resolve,
        settled by the engine once; each ask answered once, by its key."""
        key = str(message.body.get("key", ""))
        asked = message.body.get("body") or {}
        self.read()
        if not key or key in self.settled:
            return "answered before"
        self._fold()
        attempt = attempt_of(key)
        not_ours = self.not_ours(attempt)
        if not_ours:
            return not_ours
        if asked.get("resolved_by"):
            a, why = self._waiting_attempt(attempt)
            why = why or _unfit_resolve(asked) or _answered_otherwise(a, asked)
            if not why and a.outcome is None:
                why = self.may_resolve(asked["resolved_by"], str(message.body.get("who", "")), a)
        else:
            a, why = self._leg_attempt(attempt)
        if not why and a.outcome is None:
            self.engine.inbox.append((attempt, a.performer, self._answer(attempt, asked)))
            self.engine.pump()
        outcome = a.outcome if a is not None and not why else None
        body = {"settled": outcome or "", "why": why, "ask": str(message.body.get("row", ""))}
        self.record.append(f"{OUTCOME}.answered", key, body)
        self.settled.add(key)
        return why or f"settled {outcome}"

    def _answer(self, attempt: str, asked: dict[str, Any]) -> Answer:
        calls = [
            ModelCall(
                str(c.get("call") or f"{attempt}#leg{n}"), str(c.get("model", "")),
                int(c.get("micros", 0)), str(c.get("answer", "")),
            )
            for n, c in enumerate(asked.get("calls") or [])
        ]  # fmt: skip
        grant = self.grants.get(attempt, 0 if calls else None)
        outcome = "succeeded" if asked.get("outcome") == "succeeded" else "failed"
        person = asked.get("resolved_by") or ""
        if person:  # a person's decision spends nothing
            return Answer(outcome, asked.get("note") or PERSON_NOTE, resolved_by=person)
        return Answer(outcome, str(asked.get("note", "")), calls=calls, grant=grant)


def attempt_of(key: str) -> str:
    """The attempt an outcome ask is about: a leg's is keyed by the attempt, a
    person's by `<attempt>#<n>` (an attempt id ends in `/a<n>`, so the last
    `#` is the ask's)."""
    attempt, hash_, n = key.rpartition("#")
    return attempt if hash_ and n.isdigit() else key


def _answered_otherwise(a: Any, asked: dict[str, Any]) -> str:
    """Why a person's resolve of an attempt that has its outcome is refused
    ("" when the outcome is the one it asks, by the same person: this ask's,
    written before a crash lost its answer, or its twin's)."""
    if a.outcome is None:
        return ""
    if a.outcome == asked.get("outcome") and a.resolved_by == asked.get("resolved_by"):
        return ""
    by = f" (resolved by {a.resolved_by})" if a.resolved_by else ""
    return f"{a.id} already has its outcome: {a.outcome}{by}"


def _unfit_resolve(asked: dict[str, Any]) -> str:
    """Why a person's resolve cannot be taken as it is written ("" when it can)."""
    if not isinstance(asked.get("resolved_by"), str):
        return "a resolve names the person who decided as text"
    if asked.get("outcome") not in ("succeeded", "failed"):
        return "a resolve's outcome is succeeded or failed"
    if not isinstance(asked.get("note", ""), str):
        return "a resolve's note is text"
    return ""
