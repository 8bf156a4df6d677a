"""The chaos run's checker: what the final record must say, whatever was killed.

It reads every row of the final record (poison included, as a fresh clone
receives it) and counts, in the style of a Jepsen history check, each way
the spine could have done something twice or not at all:

- every `intent.requested` that fits its kind is answered once: exactly one
  `intent.offered` or `intent.refused` under its key;
- the Leader's word on an intent lands at most once. A `model.called
  plan/<intent>` row *landed* when it is in the chain, fits its kind and is
  not void under the epoch rule; two landed rows for one intent (two call
  ids) are "asked twice, both landed", a violation. A call that did not
  land is not an act: one in flight when its body lost the lease and never
  journaled (only the model server saw it), or journaled under an epoch the
  chain superseded before the row arrived (void: its spend is still counted,
  its answer admits nothing). Asking again after such a call ("asked, lost
  with the lease, asked again") is what a takeover must do, and is no
  violation; a body taking over binds a word that did land, or any it finds
  journaled, rather than ask again (hale_runtime/asks/intake.py);
- no task id is admitted twice, and no ask is admitted as two tasks;
- every admitted attempt has one outcome (`attempt.outcome`), and every
  admitted execution, root or child, one settlement (`workflow.settled`);
- every bad row that landed is answered by one `row.quarantined`, and no
  row that fits its kind is quarantined (applying a good row raised), but
  for a stale one;
- no intent is admitted as more than one execution (roots the fold refused,
  or void under the epoch rule, do not count);
- no row under a superseded epoch is applied: every stale row of a kind the
  engine folds is answered by one `row.quarantined` saying `stale:`
  (hale_runtime/record/epochs.py; that answer may itself be stale: a
  verdict acts on nothing), and the counts above leave stale rows out;
- nodes left crash-looping are counted by the driver and passed in.

`pending` is the same reading taken while the organism runs: what is still
owed (unanswered asks, attempts without outcome, executions not settled,
stale rows the engine folds not yet answered as stale),
so the driver knows when the organism has drained.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hale_runtime.record.epochs import STALE, stale_rows

ANSWERS = ("intent.offered", "intent.refused")


@dataclass
class History:
    """The counts of one final record, and every violation found in it."""

    rows: int = 0
    asks: int = 0
    tasks: int = 0
    attempts: int = 0
    quarantined: int = 0
    bad_rows: int = 0
    stale: int = 0
    forged: int = 0  # a stranger's well-formed rows that landed
    epochs: int = 0  # `body.epoch` rows: a body taking a lease (a start, or a takeover)
    leader_landed: int = 0  # `model.called plan/…` rows that landed
    leader_void: int = 0  # … journaled under a superseded epoch: paid for, not an act
    violations: list[str] = field(default_factory=list)


def _by_kind(rows: Iterable[Any], kinds: tuple[str, ...]) -> Counter:
    return Counter(r.key for r in rows if r.kind in kinds)


def pending(rows: list[Any], poison: set[str]) -> list[str]:
    """What the organism still owes: asks unanswered, attempts and executions open."""
    stale = stale_rows(rows)
    good = [r for r in rows if r.id not in poison and r.id not in stale]
    answered = _by_kind(good, ANSWERS)
    owed = [f"ask {r.key}" for r in good if r.kind == "intent.requested" and not answered[r.key]]
    outcomes = _by_kind(good, ("attempt.outcome",))
    owed += [
        f"attempt {r.key}" for r in good if r.kind == "attempt.admitted" and not outcomes[r.key]
    ]
    settled = _by_kind(good, ("workflow.settled",))
    owed += [f"task {r.key}" for r in good if r.kind == "workflow.admitted" and not settled[r.key]]
    said = {r.key for r in rows if r.kind == "row.quarantined" and r.id not in poison}
    owed += [f"verdict on {r.kind} {r.key}" for r in rows
             if r.id in stale and r.kind in FOLDED and r.id not in said]  # fmt: skip
    return owed


def check(
    rows: list[Any],
    poison: set[str],
    bad: set[str],
    looping: list[str],
    forged: set[str] = frozenset(),
) -> History:
    """The history of `rows` (every row, poison included; `poison` their ids);
    `bad` the ids of the rows the run injected; `looping` the nodes left crash-looping;
    `forged` the nonces a stranger's well-formed rows carried."""
    stale = stale_rows(rows)
    good = [r for r in rows if r.id not in poison and r.id not in stale]
    h = History(rows=len(rows), stale=len(stale))
    h.epochs = sum(1 for r in rows if r.kind == "body.epoch" and r.id not in poison)
    _asks(h, good)
    h.leader_void = sum(1 for r in rows if r.id in stale and _leader_call(r))
    _executions(h, good)
    _quarantine(h, rows, poison, bad, stale)
    _epochs(h, rows, poison, stale)
    _forged(h, good, forged)
    h.violations += [f"node {name} left crash-looping" for name in looping]
    return h


def _forged(h: History, good: list[Any], forged: set[str]) -> None:
    """No row a reader applies carries what a stranger's forged row said: her
    schedule asked nothing, her outcome settled nothing, her restart was not
    answered, her holder holds nothing (the verdicts on them aside)."""
    h.forged = len(forged)
    if not forged:
        return
    for r in good:
        if r.kind == "row.quarantined":
            continue
        text = json.dumps([r.key, r.body])
        hit = next((nonce for nonce in forged if nonce in text), None)
        if hit:
            h.violations.append(f"{r.kind} {r.key[:24]} acted on a stranger's forged row ({hit})")


def _asks(h: History, good: list[Any]) -> None:
    asks = [r.key for r in good if r.kind == "intent.requested"]
    h.asks = len(asks)
    answered = _by_kind(good, ANSWERS)
    for intent in asks:
        if answered[intent] != 1:
            h.violations.append(f"ask {intent} answered {answered[intent]} time(s)")
    landed: dict[str, set[str]] = {}
    for r in good:
        if _leader_call(r):
            landed.setdefault(r.key, set()).add(str(r.body.get("call", r.id)))
    h.leader_landed = sum(len(calls) for calls in landed.values())
    h.violations += [
        f"the Leader asked {len(calls)} times on {key}, each call landed"
        for key, calls in landed.items()
        if len(calls) > 1
    ]


def _leader_call(row: Any) -> bool:
    return row.kind == "model.called" and row.key.startswith("plan/")


def _executions(h: History, good: list[Any]) -> None:
    admitted = [r for r in good if r.kind == "workflow.admitted"]
    h.tasks = len(admitted)
    for key, n in Counter(r.key for r in admitted).items():
        if n > 1:
            h.violations.append(f"task id {key} admitted {n} times")
    refused = {r.key for r in good if r.kind == "row.quarantined"}
    roots_by_ask = Counter(
        r.body.get("ask") for r in admitted if "plan" in r.body and r.id not in refused
    )
    for ask, n in roots_by_ask.items():
        if n > 1:
            h.violations.append(f"an intent admitted as more than one execution: {ask} ({n})")
    settled = _by_kind(good, ("workflow.settled",))
    for key in dict.fromkeys(r.key for r in admitted):
        if settled[key] != 1:
            h.violations.append(f"execution {key} settled {settled[key]} time(s)")
    attempts = [r.key for r in good if r.kind == "attempt.admitted"]
    h.attempts = len(set(attempts))
    outcomes = _by_kind(good, ("attempt.outcome",))
    for key in dict.fromkeys(attempts):
        if outcomes[key] != 1:
            h.violations.append(f"attempt {key} has {outcomes[key]} outcome(s)")


def _quarantine(
    h: History, rows: list[Any], poison: set[str], bad: set[str], stale: dict[str, str]
) -> None:
    """Each bad row that landed (one that fits no kind, or one whose application
    raises) answered once; no other row answered at all, but a stale one."""
    held = {r.id for r in rows}
    h.bad_rows = len(bad & held)
    landed = (bad & held) | (set(stale) & {r.key for r in rows if r.kind == "row.quarantined"})
    answers = Counter(r.key for r in rows if r.kind == "row.quarantined" and r.id not in poison)
    h.quarantined = sum(answers.values())
    for row_id in sorted(landed):
        if answers[row_id] != 1:
            h.violations.append(f"bad row {row_id[:12]} quarantined {answers[row_id]} time(s)")
    for row_id in sorted(set(answers) - landed):
        h.violations.append(f"row {row_id[:12]}, not one the run made bad, was quarantined")


FOLDED = frozenset(
    {"workflow.admitted", "task.born", "step.registered", "attempt.admitted", "attempt.claimed",
     "attempt.outcome", "work.settled", "workflow.settled", "workflow.cancelled",
     "effect.unresolved", "effect.redelivered", "model.called", "budget.exhausted"}
)  # fmt: skip


def _epochs(h: History, rows: list[Any], poison: set[str], stale: dict[str, str]) -> None:
    """Every stale row the engine would fold is answered as stale: never applied. A
    `row.quarantined` is a verdict that makes nothing, so one its own writer's
    takeover left stale still answers (node/quarantine.py folds it so too)."""
    said = {
        r.key
        for r in rows
        if r.kind == "row.quarantined" and r.id not in poison
        and str(r.body.get("why", "")).startswith(STALE)
    }  # fmt: skip
    for r in rows:
        if r.id in stale and r.kind in FOLDED and r.id not in said:
            h.violations.append(f"a row under a superseded epoch applied: {r.kind} {r.key}")
