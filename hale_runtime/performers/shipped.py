"""The performers the project ships: organism, editor, person, agent, service.

- organism: the organization performs the step itself, in process. Its only
  effect is the outcome the engine records, so after a crash it truthfully
  did not act.
- editor: prepares a Mutation for Review with one model call; model-backed.
- person: hands a case on the Board's queue (`board.case`) and answers when
  the person does. After a crash the case in the record says it acted.
- agent: one model call answers the objective; model-backed.
- service: a local analysis service, answering without a model (the HTTP
  service, http_service.py, takes its place when HALE_DNA_SERVICE_URL names
  an endpoint).

organism, person and service are `inline`: delivering returns at once and
tells no other process of the attempt (the answer, or the case row, comes
back through the engine), so the engine delivers inside its hold on the
record (record.py, `held`). editor and agent call a model, which takes its
time, so the engine lets the hold go while they work.

Model-backed work passes the Budget gate first, makes no call whose known
price is past its grant, and says what it called; after a crash a call in
the record is its answer.
"""

from __future__ import annotations

from hale_runtime.performers.base import (
    ACTED,
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    Answer,
    Context,
    ModelCall,
    Pending,
    Reconciled,
    Work,
)
from hale_runtime.performers.hookspecs import hookimpl
from hale_runtime.performers.models import OfflineProvider
from hale_runtime.record import kinds

FIXED_KINDS = frozenset({"organism", "edit", "human", "person"})


class OrganismPerformer:
    inline = True
    kind = "organism"

    def offers(self, capability: str) -> bool:
        return capability == "organism"

    def deliver(self, work: Work, ctx: Context) -> Answer:
        return Answer(SUCCEEDED, f"performed by the organization: {work.objective}")

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        return Reconciled(NOT_ACTED)


def model_work(work: Work, ctx: Context, prompt: str) -> Answer:
    """Gate, price check and one call; the Answer carries the call and the grant."""
    admission = ctx.admit(work.ceiling_micros)
    if admission.refused:
        return Answer(
            FAILED, admission.refused, facts=[(kinds.BUDGET_REFUSED, {"text": admission.refused})]
        )
    granted = admission.granted
    price = ctx.provider.price(prompt)
    if price is not None and price > granted:
        detail = f"a call costs {price} micro-dollars, past the grant of {granted}"
        return Answer(FAILED, detail, grant=granted)
    text, micros = ctx.provider.complete(prompt)
    call = ModelCall(f"{work.attempt}#0", ctx.provider.name, micros, text)
    ctx.note_call(call)
    return Answer(SUCCEEDED, text, calls=[call], grant=granted)


def answered_from_calls(work: Work) -> Reconciled:
    """A model-backed performer's reconciliation: a recorded call is its answer."""
    answers = [body.get("answer", "") for kind, body in work.facts if kind == kinds.MODEL_CALLED]
    if answers:
        return Reconciled(ACTED, Answer(SUCCEEDED, answers[-1]))
    return Reconciled(NOT_ACTED)


class EditorPerformer:
    kind = "editor"

    def offers(self, capability: str) -> bool:
        return capability == "edit"

    def deliver(self, work: Work, ctx: Context) -> Answer:
        answer = model_work(work, ctx, f"prepare a mutation for review: {work.objective}")
        if answer.outcome == SUCCEEDED:
            answer.facts.append(
                (kinds.MUTATION_PREPARED, {"review": "pending", "text": answer.detail})
            )
        return answer

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        return answered_from_calls(work)


class PersonPerformer:
    inline = True
    kind = "person"

    def offers(self, capability: str) -> bool:
        return capability not in ("organism", "edit")

    def deliver(self, work: Work, ctx: Context) -> Pending:
        case = {"queue": "board", "objective": work.objective, "requires": list(work.requires)}
        return Pending([(kinds.BOARD_CASE, case)])

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        if any(kind == kinds.BOARD_CASE for kind, _ in work.facts):
            return Reconciled(ACTED)  # the case is on the queue; the person answers later
        return Reconciled(NOT_ACTED)


class AgentPerformer:
    kind = "agent"

    def offers(self, capability: str) -> bool:
        return capability not in FIXED_KINDS

    def deliver(self, work: Work, ctx: Context) -> Answer:
        return model_work(work, ctx, work.objective)

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        return answered_from_calls(work)


class ServicePerformer:
    inline = True
    kind = "service"

    def __init__(self, capabilities: tuple[str, ...] = ("analysis",)):
        self.capabilities = frozenset(capabilities)

    def offers(self, capability: str) -> bool:
        return capability in self.capabilities

    def deliver(self, work: Work, ctx: Context) -> Answer:
        words = work.objective.split()
        return Answer(SUCCEEDED, f"analysed {len(words)} word(s)")

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        return Reconciled(NOT_ACTED)


class ShippedPlugin:
    """The plugin registering the shipped performers and the offline provider."""

    @hookimpl
    def hale_performers(self) -> list:
        return [
            OrganismPerformer(),
            EditorPerformer(),
            PersonPerformer(),
            AgentPerformer(),
            ServicePerformer(),
        ]

    @hookimpl(trylast=True)
    def hale_model_provider(self) -> object:
        return OfflineProvider()
