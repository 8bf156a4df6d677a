"""What a performer is handed, and what it may answer.

The engine hands a performer a `Work` (the attempt, its objective, what it
requires, its claim token and cost ceiling) and a `Context` (the one Budget
gate, the model provider, the clock). `deliver` answers now (`Answer`),
later (`Pending`, with the performer's own facts to record, such as a case
on the Board's queue), or says it cannot tell whether it acted (`Unsure`:
a call sent and never answered; a person decides). A performer whose
effect lies outside the record journals around it with `ctx.journal`
(rows appended at once, before its answer). After a restart, `reconcile` says what became of an
attempt a dead process claimed: it acted (`Reconciled(ACTED, answer)`, or
`answer=None` when its answer is still to come), it truthfully did not act
(`NOT_ACTED`: deliver it again), or it cannot say (`UNKNOWN`: a person
decides). `facts` on the Work are the rows the record holds under the
attempt's key that are not the engine's own (`model.called`, `board.case`),
so a performer can answer from its own record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

SUCCEEDED = "succeeded"
FAILED = "failed"
CANCELLED = "cancelled"

ACTED = "acted"
NOT_ACTED = "not-acted"
UNKNOWN = "unknown"

Fact = tuple[str, dict[str, Any]]  # (kind, body), recorded under the attempt's key


@dataclass(frozen=True)
class Work:
    attempt: str
    task: str
    objective: str
    requires: tuple[str, ...]
    performer: str
    token: int = 0
    ceiling_micros: int = 0
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class ModelCall:
    call: str  # unique id: "<attempt>#<n>"
    model: str
    micros: int
    answer: str


@dataclass
class Answer:
    outcome: str  # succeeded | failed
    detail: str = ""
    calls: list[ModelCall] = field(default_factory=list)
    grant: int | None = None  # what Budget.admit granted, for model-backed work
    facts: list[Fact] = field(default_factory=list)
    resolved_by: str = ""  # the person who decided it, when a person did


@dataclass
class Pending:
    facts: list[Fact] = field(default_factory=list)


@dataclass
class Unsure:
    """It cannot say whether it acted (a call sent and never answered): a person decides."""

    why: str
    facts: list[Fact] = field(default_factory=list)


@dataclass
class Reconciled:
    verdict: str  # ACTED | NOT_ACTED | UNKNOWN
    answer: Answer | None = None
    why: str = ""  # for UNKNOWN: what it knows, for the person who decides


@dataclass(frozen=True)
class Admission:
    """The Budget gate's answer (engine/budget.py), declared here where performers
    receive it, so the engine imports the performers and never the reverse."""

    granted: int  # micro-dollars the spend may use (0 when refused)
    refused: str = ""  # the refusal's text, "" when admitted
    window: str = ""  # the window's label, e.g. "day/2026-11-29"


class ModelProvider(Protocol):
    name: str

    def price(self, prompt: str) -> int | None:
        """The price of one call in micro-dollars, if known before making it."""

    def complete(self, prompt: str) -> tuple[str, int]:
        """(answer, micro-dollars it cost)."""


@dataclass
class Context:
    admit: Callable[[int], Admission]  # the Budget gate: ceiling -> Admission
    note_call: Callable[[ModelCall], None]  # a call made, before its row is written
    provider: ModelProvider
    clock: Callable[[], int]
    # a performer's own record: journal(kind, attempt, body) appends a row now,
    # before its answer, so that after a crash it can say what it did
    journal: Callable[[str, str, dict[str, Any]], Any] | None = None


class Performer(Protocol):
    kind: str  # organism | editor | person | agent | service
    # optional `inline = True`: delivering returns at once and tells no other process of
    # the attempt, so the engine delivers inside its hold on the record (engine.py)

    def offers(self, capability: str) -> bool: ...

    def deliver(self, work: Work, ctx: Context) -> Answer | Pending | Unsure: ...

    def reconcile(self, work: Work, ctx: Context) -> Reconciled: ...
