"""The head's decisions for legs: claim, renew, allowance, outcome, release.

The head folds the record with the engine's own fold (State), so it knows
each attempt, its performer and its task, and keeps the attempts open for
legs: admitted to a leg kind, claimed by the organization (delivered), and
with neither an outcome nor a leg's outcome asked. A leg's lease is memory's
claim `lease/<attempt>` under the leg's name, taken with one conditional
write, so of legs racing for an attempt one gets it. The lease token a leg
is told is 128 bits no one else can make: an HMAC, under a key the head
draws when it opens, of the attempt, the leg and memory's fencing token (the
int the record's `claim.taken` shows); only the claiming leg hears it. Every
call but claim names the attempt and that token; the head checks it against
memory's live claim first, and a lease that expired, was released or taken
over, or is not the caller's, is refused (HeadRefused) before anything is
decided, in words that name no other leg. Over a shared record (the head's `owner`, the
node's HALE_DNA_OWNER) the head hands a leg only the attempts of tasks its
own organization owns, by the intake's rule: the owner of the position the
ask was for, else the asker's. A decision is the rows to write plus what to do
once they are written (give a lease back), so the server can write many
legs' decisions as one commit; the head applies its own decisions to its
view at once, so a decision later in that batch sees them. The reads
(`dna.record.read`, `dna.graph.read`, `dna.work.hat`, in reads.py) need no
lease and write nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hale_runtime.asks.settle import ALLOWANCE, LEG_KINDS, OUTCOME
from hale_runtime.engine import Budget, BudgetPolicy, State
from hale_runtime.engine.ids import root_of
from hale_runtime.errors import Refused
from hale_runtime.head.reads import READS, ReadRefused
from hale_runtime.head.reads import read as read_call
from hale_runtime.memory import Fenced, Grant
from hale_runtime.owners import Owners
from hale_runtime.record import kinds
from hale_runtime.record.follow import Follower
from hale_runtime.record.kinds import CALL, COUNT, ID, NUMBER, TEXT, Checker, list_of

LEASE_S = 60.0
MAX_CALLS = 1000  # model calls one outcome may report
HELD_RETRY_S = 5.0  # an attempt another leg holds is tried again after this long
OUTCOMES = ("succeeded", "failed")
METHODS = ("claim", "renew", "allowance", "outcome", "release")


class HeadRefused(Refused):
    """A leg's call refused, with nothing written; the text says why. `status`
    is the HTTP answer: 409 for a call that may not be made, 400 for one whose
    parameters are not of their type."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


_LEASE = {"leg": ID, "attempt": ID, "token": TEXT}
# each call's parameters and their types (record/kinds.py's checkers); absent ones are
# the call's to refuse, present ones of another type are refused here with a 400
PARAMS: dict[str, dict[str, Checker]] = {
    "dna.attempt.claim": {"leg": ID, "requires": TEXT},
    "dna.attempt.renew": _LEASE,
    "dna.attempt.allowance": {**_LEASE, "wait": NUMBER},
    "dna.attempt.outcome": {
        **_LEASE, "outcome": TEXT, "note": TEXT, "calls": list_of(CALL, MAX_CALLS),
    },
    "dna.attempt.release": _LEASE,
    "dna.record.read": {"since": COUNT, "limit": COUNT, "kind": TEXT, "key_prefix": TEXT},
    "dna.graph.read": {"node_kind": TEXT, "edge_kind": TEXT},
    "dna.work.hat": {"id": ID},
}  # fmt: skip


def check_params(method: str, params: dict[str, Any]) -> None:
    """HeadRefused (400) naming the first parameter present that is not of its type."""
    for name, fits in PARAMS.get(method, {}).items():
        if name in params and params[name] is not None:
            why = fits(params[name])
            if why:
                raise HeadRefused(f"refused: {name}{why}; nothing written", 400)


@dataclass
class Decision:
    result: dict[str, Any]
    rows: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    after: Callable[[], None] | None = None
    gives_back: tuple[str, str, int] | None = None  # a lease to release once the rows are written


class Head:
    def __init__(self, record: Any, memory: Any, lease_s: float = LEASE_S,
                 leg_kinds: frozenset[str] = LEG_KINDS, owner: str | None = None):  # fmt: skip
        self.record, self.memory, self.lease_s, self.leg_kinds = record, memory, lease_s, leg_kinds
        self.owner = owner or None  # over a shared record: the organization this head serves
        self.owners = Owners()
        self.state = State(Budget(BudgetPolicy()), forget_settled=True)
        self.state.judge = self.record.stale  # the epoch rule
        self.open: dict[str, None] = {}  # attempts open for legs, in the order delivered
        # attempts a leg holds, as far as this head knows -> when to try memory again (monotonic):
        # a claim passes over them without a write (a take refused costs a commit)
        self.leased: dict[str, tuple[str, float]] = {}  # attempt -> (its leg, until)
        self.asked: set[str] = set()  # attempts whose allowance was asked
        self.allowances: dict[str, dict[str, Any]] = {}  # attempt -> the organization's answer
        self.follower = Follower(record)
        # the highest seq known landed: stamped when the head opened, then step 7's word
        self.landed = record.cursor(stamped_only=True)
        self.ledger: tuple[str, int] | None = None  # (body claim, epoch) of an adopted ledger
        self.key = secrets.token_bytes(32)  # what the lease tokens legs are told are made with

    # ---- the fold ----------------------------------------------------------------

    def resume(self, checkpoint: Any) -> bool:
        """Stand where the organization's checkpoint (node/checkpoint.py) stood,
        so the first call folds only the rows after it; whether it could.

        The engine's part is the State (its open roots kept as their rows) and
        the Settler's holds the owners' fold: what the head keeps of its own
        (attempts open for legs, allowances asked and answered) lies under the
        open roots, so it is noted again from those rows, in their order."""
        engine, settler = checkpoint.part("engine"), checkpoint.part("settler")
        if engine is None or settler is None:
            return False
        seq, data = engine
        self.state = State.restore(Budget(BudgetPolicy()), data["state"])
        self.state.judge = self.record.stale  # the epoch rule
        self.owners = Owners.restore(settler[1]["owners"])
        self.open, self.asked, self.allowances = {}, set(), {}
        for kind, key, body, _ in data["state"]["open"]:
            self._note(kind, key, body, owners=False)
        self.follower = Follower(self.record, seq)
        return True

    def read(self) -> None:
        """Take in the rows written since the last read; one the fold cannot apply
        is skipped here as everywhere (the organization quarantines it)."""
        fold = self.state.fold
        for r in self.follower.new_rows():
            if fold(r):
                self._note(r.kind, r.key, r.body)
        self.state.poison.clear()

    def _note(self, kind: str, key: str, body: dict[str, Any], owners: bool = True) -> None:
        if kind == kinds.ATTEMPT_CLAIMED:
            a = self.state.attempts.get(key)
            if a is not None and a.performer in self.leg_kinds and a.claimed and a.outcome is None:
                self.open[key] = None
        elif kind in (kinds.ATTEMPT_OUTCOME, f"{OUTCOME}.requested"):
            self.open.pop(key, None)
            self.leased.pop(key, None)
        elif kind == f"{ALLOWANCE}.requested":
            self.asked.add(key)
        elif kind == f"{ALLOWANCE}.answered":
            self.allowances[key] = body
        if owners:
            self.owners.note(kind, key, body)

    def land(self, seq: int) -> None:
        """The node's step 7: rows up to `seq` landed (the remote holds them)."""
        self.landed = max(self.landed, seq)

    # ---- the calls -----------------------------------------------------------------

    def decide(self, method: str, params: dict[str, Any]) -> Decision:
        """One leg's call, decided; HeadRefused when it may not be made."""
        check_params(method, params)
        if method in READS:
            try:
                return Decision(read_call(method, params, self.record, self.memory, self.landed))
            except ReadRefused as refused:
                raise HeadRefused(str(refused)) from None
        name = method.removeprefix("dna.attempt.")
        if name not in METHODS:
            raise HeadRefused(f"refused: no such call {method}")
        leg = str(params.get("leg") or "")
        if not leg:
            raise HeadRefused("refused: a leg names itself (leg)")
        if name == "claim":
            return self.claim(leg, str(params.get("requires") or ""))
        attempt, token = str(params.get("attempt") or ""), params.get("token")
        if not isinstance(token, str) or not token:
            raise HeadRefused(f"refused: {method} needs the attempt and its lease token")
        held = self._held(leg, attempt, token)
        if name == "renew":
            return self.renew(leg, attempt, held)
        if name == "allowance":
            return self.allowance(leg, attempt, held)
        if name == "outcome":
            return self.outcome(leg, attempt, held, params)
        return self.release(leg, attempt, held)

    def decide_many(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Decision | Exception]:
        """`decide` for each call of a batch, or the exception that refused it; the
        batch's claims are decided together (`claims`: one transaction of takes)."""
        out: list[Decision | Exception | None] = [None] * len(calls)
        claims: list[tuple[int, str, str]] = []
        for n, (method, params) in enumerate(calls):
            if method != "dna.attempt.claim":
                continue
            try:
                check_params(method, params)
                if not params.get("leg"):
                    raise HeadRefused("refused: a leg names itself (leg)")
            except HeadRefused as refused:
                out[n] = refused
                continue
            claims.append((n, str(params["leg"]), str(params.get("requires") or "")))
        if claims:
            try:
                decided: list[Decision | Exception] = list(
                    self.claims([(leg, requires) for _, leg, requires in claims])
                )
            except Exception as error:  # the stores failed: every claim's answer
                decided = [error] * len(claims)
            for (n, _, _), d in zip(claims, decided, strict=True):
                out[n] = d
        for n, (method, params) in enumerate(calls):
            if out[n] is None:
                try:
                    out[n] = self.decide(method, params)
                except Exception as error:  # refused, or the stores failed: its answer
                    out[n] = error
        return out  # type: ignore[return-value]

    def claim(self, leg: str, requires: str = "") -> Decision:
        """Lease one open attempt this leg can perform (None when there is none)."""
        return self.claims([(leg, requires)])[0]

    def claims(self, legs: list[tuple[str, str]]) -> list[Decision]:
        """`claim` for each (leg, requires) of a batch: each picks a different open
        attempt it fits, and memory takes all their leases in one transaction; a leg
        whose take was refused (another leg's lease this head did not know) tries alone."""
        self.read()
        now, chosen, picked = time.monotonic(), set(), {}
        for n, (leg, requires) in enumerate(legs):
            passed: list[str] = []  # leased to another leg, as far as this head knows
            for attempt in self.open:
                holder, until = self.leased.get(attempt, (leg, 0.0))
                if attempt in chosen:
                    continue
                if holder != leg and until > now:
                    passed.append(attempt)
                    continue
                if not self._fits(leg, attempt, requires):
                    continue
                chosen.add(attempt)
                picked[n] = attempt
                break
            else:  # none free: one whose lease memory says ended (a read, not a write)
                for attempt in passed:
                    if (
                        attempt not in chosen
                        and self._fits(leg, attempt, requires)
                        and self.memory.claim(f"lease/{attempt}") is None
                    ):
                        chosen.add(attempt)
                        picked[n] = attempt
                        break
        wanted = [(f"lease/{attempt}", legs[n][0]) for n, attempt in picked.items()]
        taken = self.memory.take_each(wanted, self.lease_s) if wanted else []
        grants = dict(zip(picked, taken, strict=True))
        decided = []
        for n, (leg, requires) in enumerate(legs):
            attempt, grant = picked.get(n), grants.get(n)
            if attempt is None:
                decided.append(Decision({"attempt": None}))
            elif grant is None:  # another leg holds it: passed over for a while
                self.leased[attempt] = ("", now + min(self.lease_s, HELD_RETRY_S))
                decided.append(self.claim(leg, requires))
            else:
                self.leased[attempt] = (leg, now + self.lease_s)
                body = {"holder": leg, "token": grant.token, "until": grant.until}
                row = (kinds.CLAIM_TAKEN, f"lease/{attempt}", body)
                decided.append(Decision(self._offer(attempt, grant), [row]))
        return decided

    def _fits(self, leg: str, attempt: str, requires: str) -> bool:
        a = self.state.attempts[attempt]
        if requires and requires not in a.unit.leaf.requires:
            return False
        task = self.state.tasks.get(root_of(attempt))
        intent = task.ask if task is not None else ""
        position = self.owners.to.get(intent, "")
        if self.owner and self.owners.of(intent) != self.owner:
            return False  # another organization's task, over a shared record
        if not position:
            return True
        return (self.memory.holder_of(position) or "") == leg

    def lease_token(self, leg: str, attempt: str, fence: int) -> str:
        """The token a leg is told for its lease: 128 bits of an HMAC that only this
        head can make, bound to the attempt, the leg and memory's fencing token."""
        said = f"{attempt}\n{leg}\n{fence}".encode()
        return hmac.new(self.key, said, hashlib.sha256).hexdigest()[:32]

    def _offer(self, attempt: str, grant: Grant) -> dict[str, Any]:
        a = self.state.attempts[attempt]
        return {
            "attempt": attempt, "token": self.lease_token(grant.holder, attempt, grant.token),
            "until": grant.until,
            "lease_s": self.lease_s, "objective": a.unit.leaf.objective,
            "requires": list(a.unit.leaf.requires), "task": root_of(attempt),
        }  # fmt: skip

    def _held(self, leg: str, attempt: str, token: str) -> Grant:
        """The leg's live lease on the attempt, proven by the token it was told;
        HeadRefused otherwise, naming no one (whoever holds it is no one else's business)."""
        grant = self.memory.claim(f"lease/{attempt}")
        if (
            grant is None
            or grant.holder != leg
            or not hmac.compare_digest(self.lease_token(leg, attempt, grant.token), token)
        ):
            raise HeadRefused(
                f"refused: {leg} holds no live lease on {attempt} under that token (it expired, "
                "was released or taken over, or was never yours); nothing written"
            )
        return grant

    def renew(self, leg: str, attempt: str, held: Grant) -> Decision:
        try:
            grant = self.memory.renew(f"lease/{attempt}", leg, held.token, self.lease_s)
        except Fenced as fenced:
            why = "was taken over" if "taken over" in fenced.why else fenced.why.split(" by ")[0]
            raise HeadRefused(f"refused: your lease on {attempt} {why}") from None
        token = self.lease_token(leg, attempt, grant.token)
        return Decision({"attempt": attempt, "token": token, "until": grant.until})

    def allowance(self, leg: str, attempt: str, held: Grant) -> Decision:
        """Ask the organization for the attempt's budget (once); its answer when it has one."""
        self.read()
        answer = self.allowance_of(attempt)
        if answer["answered"] or attempt in self.asked:
            return Decision(answer)
        self.asked.add(attempt)
        body = {"leg": leg, "token": held.token}
        return Decision(answer, [(f"{ALLOWANCE}.requested", attempt, body)])

    def allowance_of(self, attempt: str) -> dict[str, Any]:
        """The organization's answer to the attempt's allowance, as far as the head has read."""
        body = self.allowances.get(attempt)
        if body is None:
            return {"attempt": attempt, "answered": False}
        granted, refused = int(body.get("granted", 0)), str(body.get("refused", ""))
        return {"attempt": attempt, "answered": True, "granted": granted, "refused": refused}

    def outcome(self, leg: str, attempt: str, held: Grant, params: dict[str, Any]) -> Decision:
        """Record the leg's outcome for the organization to settle, and end the lease."""
        outcome = str(params.get("outcome") or "")
        if outcome not in OUTCOMES:
            raise HeadRefused(f"refused: an outcome is succeeded or failed, not {outcome!r}")
        self.read()
        if attempt not in self.open:
            raise HeadRefused(f"refused: {attempt} is not open for a leg (settled or submitted)")
        calls = [dict(c) for c in params.get("calls") or [] if isinstance(c, dict)]
        body = {"leg": leg, "token": held.token, "outcome": outcome, "calls": calls,
                "note": str(params.get("note") or "")}  # fmt: skip
        self.open.pop(attempt, None)
        rows = [(f"{OUTCOME}.requested", attempt, body), *self._released(leg, attempt)]
        return Decision(
            {"attempt": attempt, "submitted": outcome},
            rows,
            gives_back=self._give_back(leg, attempt, held),
        )

    def release(self, leg: str, attempt: str, held: Grant) -> Decision:
        """Give the attempt back unsettled, for another leg to claim."""
        return Decision(
            {"attempt": attempt, "released": True},
            self._released(leg, attempt),
            gives_back=self._give_back(leg, attempt, held),
        )

    def _released(self, leg: str, attempt: str) -> list[tuple[str, str, dict[str, Any]]]:
        return [(kinds.CLAIM_RELEASED, f"lease/{attempt}", {"holder": leg})]

    def _give_back(self, leg: str, attempt: str, held: Grant) -> tuple[str, str, int]:
        self.leased.pop(attempt, None)
        return (f"lease/{attempt}", leg, held.token)

    def give_back(self, decisions: list[Decision]) -> None:
        """Release, in one transaction, the leases these written decisions end; a
        release that fails is no one's loss (the lease runs out instead)."""
        grants = [d.gives_back for d in decisions if d.gives_back is not None]
        try:
            self.memory.release_each(grants)
        except Exception:  # noqa: BLE001 - said nowhere: the lease simply expires
            return

    def write(self, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Write decided rows: to the git record, or, once the record adopted a ledger,
        to it under the body's epoch (memory refuses a stale one: Fenced, nothing
        written), judged and signed as an append is; the host carries the ledger's
        rows into the record with their signature (ledger/)."""
        if self.ledger is None:
            self.record.append_many(rows)
            return
        self.memory.ledger_append(self.record.sealed(rows), self.ledger)

    # ---- one call, written at once -------------------------------------------------

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Decide, write and finish one call (the server batches instead)."""
        decision = self.decide(method, params)
        if decision.rows:
            self.write(decision.rows)
        if decision.after is not None:
            decision.after()
        self.give_back([decision])
        return decision.result
