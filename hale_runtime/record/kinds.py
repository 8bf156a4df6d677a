"""Every row kind the runtime writes or reads: its key's form, its body's fields.

Any clone, any leg and any person can append a row, so a row is input and
is checked at both doors against one table (`KINDS`):

- writing: `Record.append_many` refuses a row that does not fit its kind
  (`RowRefused`, with nothing written), so no verb, head or organization
  writes one;
- reading: the record marks each row it decodes that does not fit as
  poison; readers never see it (`Record.rows`), and the organization
  answers it with one `row.quarantined` row (node/quarantine.py).

Every row, whatever its kind, has an envelope: its kind is one word with no
space or control character, its key is an id, its body a JSON object. An id
is one line with no control character, at most `MAX_ID` characters. A
number is a number: an integer within 64 bits, never a boolean and never a
string of digits. A body may carry fields the table does not name (a newer
hale may add some); the fields it names must be there when required and of
their type when present. A kind the table does not name is checked for its
envelope only: the record may hold rows of parts this hale does not run,
and nothing here applies them.

A checker is a function from a value to why it does not fit ("" when it
does), phrased to follow the field's name: ` is a whole number, not 'lots'`,
`[0].micros is …`, ` lacks outcome`. `check` puts the name in front. Each
checker also carries an `example` of a value that fits, so `example(kind)`
gives a body of any kind that fits it (docs, tests, fuzzing).

Adding a kind is one entry: the constant that writers and readers use is
what `kind(...)` returns, e.g.
`THING_NOTED = kind("thing.noted", ID, {"n": COUNT}, {"note": TEXT})`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from hale_runtime.record import bounds

Checker = Callable[[Any], str]

MAX_ID = 512  # characters of a key or an id
MAX_KIND = 128
MAX_INT = bounds.MAX_INT  # a number is an integer of 64 bits, as memory's columns hold them
PLAN_DEPTH = 8  # the engine's limits (docs/engine.md): a plan deeper or wider is not one
PLAN_STEPS, PLAN_MEMBERS = 32, 32

_KIND = re.compile(r"[^\s\x00-\x1f\x7f-\x9f]+")
_SPACES = {c: " " for c in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)}


def shown(value: Any) -> str:
    """A value as a refusal quotes it: its repr, on one line, cut at 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---- checkers ----------------------------------------------------------------------


def TEXT(value: Any) -> str:  # noqa: N802 (checkers read as types in the table)
    return "" if type(value) is str else f" is text, not {shown(value)}"


def ID(value: Any) -> str:  # noqa: N802
    if type(value) is str and len(value) <= MAX_ID and (value.isprintable() or _spaced(value)):
        return ""
    if type(value) is not str:
        return f" is an id (one line of text), not {shown(value)}"
    if len(value) > MAX_ID:
        return f" is an id of at most {MAX_ID} characters, not {len(value)}"
    return f" is an id (one line of printable text), not {shown(value)}"


def TASK(value: Any) -> str:  # noqa: N802
    """A task's id: a root's `t1` or a child's `t1.s0.b`, never a step's or an
    attempt's (a row admitting one under such a key would name another task's parts)."""
    why = ID(value)
    if why or "/" not in value:
        return why
    return f" is a task's id (t1, or a child's t1.s0.b), not {shown(value)}"


def _spaced(value: str) -> bool:
    """Printable but for spaces of other widths (isprintable counts only ' ' as one)."""
    return value.translate(_SPACES).isprintable()


def INT(value: Any) -> str:  # noqa: N802
    if type(value) is not int or not -MAX_INT < value < MAX_INT:
        return f" is a whole number, not {shown(value)}"
    return ""


def COUNT(value: Any) -> str:  # noqa: N802
    if type(value) is not int or not 0 <= value < MAX_INT:
        return f" is a whole number, 0 or more, not {shown(value)}"
    return ""


def NUMBER(value: Any) -> str:  # noqa: N802
    if type(value) in (int, float) and -MAX_INT < value < MAX_INT:
        return ""
    return f" is a number, not {shown(value)}"


def BOOL(value: Any) -> str:  # noqa: N802
    return "" if type(value) is bool else f" is true or false, not {shown(value)}"


def OBJECT(value: Any) -> str:  # noqa: N802
    return "" if type(value) is dict else f" is a JSON object, not {shown(value)}"


def ANY(value: Any) -> str:  # noqa: N802
    return ""


def _example(checker: Checker, value: Any) -> Checker:
    checker.example = value  # type: ignore[attr-defined]
    return checker


for _checker, _value in ((TEXT, "text"), (ID, "id-1"), (INT, 1), (COUNT, 1), (NUMBER, 1.5),
                         (BOOL, True), (OBJECT, {}), (ANY, "any")):  # fmt: skip
    _example(_checker, _value)


def example_of(checker: Checker) -> Any:
    """A value that fits `checker`."""
    return checker.example  # type: ignore[attr-defined]


def maybe(inner: Checker) -> Checker:
    """`inner`, or null."""
    return _example(lambda value: "" if value is None else inner(value), example_of(inner))


def one_of(*values: str) -> Checker:
    def fits(value: Any) -> str:
        if type(value) is str and value in values:
            return ""
        return f" is {' or '.join(values)}, not {shown(value)}"

    return _example(fits, values[0])


def list_of(inner: Checker, most: int = 10_000) -> Checker:
    def fits(value: Any) -> str:
        if type(value) is not list:
            return f" is a list, not {shown(value)}"
        if len(value) > most:
            return f" is a list of at most {most}, not {len(value)}"
        for n, item in enumerate(value):
            why = inner(item)
            if why:
                return f"[{n}]{why}"
        return ""

    return _example(fits, [example_of(inner)])


def fields(required: dict[str, Checker], optional: dict[str, Checker] | None = None) -> Checker:
    """A JSON object with these fields (others may be there too)."""
    optional = optional or {}

    def fits(value: Any) -> str:
        if type(value) is not dict:
            return f" is a JSON object, not {shown(value)}"
        return _fields_why(value, required, optional, ".")

    every = {**required, **optional}
    return _example(fits, {name: example_of(c) for name, c in every.items()})


def _fields_why(
    body: dict[str, Any], required: dict[str, Checker], optional: dict[str, Checker], dot: str
) -> str:
    for name, fits in required.items():
        if name not in body:
            return f" lacks {name}" if dot else f"body lacks {name}"
        why = fits(body[name])
        if why:
            return f"{dot}{name}{why}"
    for name, fits in optional.items():
        if name in body:
            why = fits(body[name])
            if why:
                return f"{dot}{name}{why}"
    return ""


def _plan(depth: int) -> Checker:
    """A plan as the engine writes it in `workflow.admitted` (engine/plan.py)."""

    def member(value: Any) -> str:
        if type(value) is dict and "child" in value:
            if depth >= PLAN_DEPTH:
                return f" nests deeper than {PLAN_DEPTH}"
            return fields({"key": ID, "child": _plan(depth + 1)})(value)
        return LEAF(value)

    _example(member, LEAF.example)
    step = fields({"store": TEXT, "members": list_of(member, PLAN_MEMBERS)})
    return fields({"id": ID, "rev": INT, "summary": TEXT, "steps": list_of(step, PLAN_STEPS)})


def DIGEST(value: Any) -> str:  # noqa: N802
    """A git object id in hex: what a protected body is addressed by."""
    if type(value) is str and len(value) in (40, 64) and all(c in _HEX for c in value):
        return ""
    return f" is a digest (a git object id in hex), not {shown(value)}"


_HEX = frozenset("0123456789abcdef")
_example(DIGEST, "0" * 40)
LEAF = fields({"key": ID, "objective": TEXT, "requires": list_of(TEXT), "attempts": COUNT})
PLAN = _plan(1)
OUTCOME = one_of("succeeded", "failed", "cancelled")
CALL = fields({}, {"call": TEXT, "model": TEXT, "micros": COUNT, "answer": TEXT})


# ---- the table ---------------------------------------------------------------------


class Kind(NamedTuple):
    name: str
    key: Checker
    required: dict[str, Checker]
    optional: dict[str, Checker]
    whole: Checker | None  # a rule across fields, asked once the fields fit


KINDS: dict[str, Kind] = {}


def kind(
    name: str,
    key: Checker = ID,
    required: dict[str, Checker] | None = None,
    optional: dict[str, Checker] | None = None,
    whole: Checker | None = None,
) -> str:
    """Put a kind in the table; its name, for writers and readers to use."""
    if name in KINDS:
        raise ValueError(f"row kind {name} is in the table twice")
    if len(name) > MAX_KIND or not _KIND.fullmatch(name):  # what `envelope` then skips
        raise ValueError(f"row kind {name!r} is not one word")
    KINDS[name] = Kind(name, key, required or {}, optional or {}, whole)
    return name


def _admitted_whole(body: dict[str, Any]) -> str:
    """A root names its plan; a child names where it hangs (parent, step, member)."""
    if "plan" in body:
        return ""
    missing = [f for f in ("parent", "step", "member") if f not in body]
    return f"body lacks plan, or {', '.join(missing)} for a child" if missing else ""


# the engine (engine/engine.py, engine/state.py)
WORKFLOW_ADMITTED = kind(
    "workflow.admitted",
    TASK,
    {"definition": TEXT},
    {"ask": ID, "convener": ID, "inputs": OBJECT, "plan": PLAN, "parent": ID, "step": COUNT,
     "member": ID},
    _admitted_whole,
)  # fmt: skip
TASK_BORN = kind("task.born", TASK, {}, {"summary": TEXT})
STEP_REGISTERED = kind("step.registered", ID, {}, {"store": TEXT, "members": list_of(ID)})
ATTEMPT_ADMITTED = kind("attempt.admitted", ID, {"performer": ID})
ATTEMPT_CLAIMED = kind("attempt.claimed", ID, {}, {"holder": ID, "token": INT})
ATTEMPT_OUTCOME = kind(
    "attempt.outcome",
    ID,
    {"outcome": OUTCOME, "performer": ID},
    {"detail": TEXT, "grant_micros": COUNT, "spent_micros": COUNT, "resolved_by": ID},
)
WORK_SETTLED = kind("work.settled", ID, {"outcome": OUTCOME}, {"attempts": COUNT})
WORKFLOW_SETTLED = kind("workflow.settled", ID, {"outcome": OUTCOME}, {"reason": TEXT})
WORKFLOW_CANCELLED = kind("workflow.cancelled", ID, {}, {"by": TEXT})
CANCEL_REQUESTED = kind("workflow.cancel_requested", ID, {"task": ID}, {"by": ID})
CANCEL_ANSWERED = kind(
    "workflow.cancel_answered", ID, {"cancelled": BOOL}, {"task": TEXT, "why": TEXT}
)
EFFECT_UNRESOLVED = kind(
    "effect.unresolved", ID, {}, {"performer": ID, "resolve": TEXT, "why": TEXT}
)
EFFECT_CALLING = kind("effect.calling", ID, {"performer": ID}, {"url": TEXT})
EFFECT_CALLED = kind(
    "effect.called", ID, {"performer": ID, "outcome": one_of("succeeded", "failed")},
    {"detail": TEXT},
)  # fmt: skip
EFFECT_REDELIVERED = kind("effect.redelivered", ID, {}, {"performer": ID})
REPLY_REFUSED = kind("reply.refused", ID, {}, {"from": TEXT, "admitted_to": TEXT, "why": TEXT})
MODEL_CALLED = kind(
    "model.called", ID, {"micros": COUNT}, {"call": TEXT, "model": TEXT, "answer": TEXT}
)
BUDGET_EXHAUSTED = kind(
    "budget.exhausted",
    ID,
    {},
    {"window": ID, "allowance_micros": COUNT, "spent_micros": COUNT, "calls": COUNT},
)
BUDGET_REFUSED = kind("budget.refused", ID, {}, {"text": TEXT})
BOARD_CASE = kind(
    "board.case", ID, {}, {"objective": TEXT, "queue": TEXT, "requires": list_of(TEXT)}
)
# Keys a row of one kind opens and a row of another closes, by group: the
# record's index keeps each group's open keys as its rows go in, so a reader
# lists what is open without reading what closed (`Record.open_keys`). A
# case: an attempt handed to a person, or one its performer could not say
# acted, until its outcome.
OPEN_UNTIL: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "case": (frozenset({BOARD_CASE, EFFECT_UNRESOLVED}), frozenset({ATTEMPT_OUTCOME})),
}
MUTATION_PREPARED = kind("mutation.prepared", ID, {}, {"review": TEXT, "text": TEXT})
LEG_OFFERED = kind("leg.offered", ID, {}, {"objective": TEXT, "requires": list_of(TEXT)})

# asks and legs (asks/, head/)
INTENT_REQUESTED = kind(
    "intent.requested",
    ID,
    {},
    {"objective": TEXT, "target": TEXT, "judgment": BOOL, "to": ID, "by": ID, "owner": ID,
     "found": OBJECT},  # found: the optimize pass's signals, on the ask it writes
)  # fmt: skip
INTENT_OFFERED = kind(
    "intent.offered",
    ID,
    {},
    {"definition": ID, "planned": BOOL, "kind": TEXT, "class": TEXT, "target": TEXT,
     "whom": TEXT, "obligation": TEXT, "position": ID, "not_widened": TEXT, "bound": TEXT},
)  # fmt: skip
INTENT_REFUSED = kind("intent.refused", ID, {}, {"reason": TEXT})
ALLOWANCE_REQUESTED = kind("attempt.allowance.requested", ID, {}, {"leg": ID, "token": INT})
ALLOWANCE_ANSWERED = kind(
    "attempt.allowance.answered", ID, {}, {"granted": COUNT, "refused": TEXT, "window": TEXT}
)
OUTCOME_REQUESTED = kind(
    "attempt.outcome.requested",
    ID,
    {},
    {"outcome": one_of("succeeded", "failed"), "note": TEXT, "calls": list_of(CALL, 1000),
     "leg": ID, "token": INT, "resolved_by": ID},
)  # fmt: skip
OUTCOME_ANSWERED = kind(
    "attempt.outcome.answered", ID, {}, {"settled": TEXT, "why": TEXT, "ask": TEXT}
)  # ask: the id of the request row it answers

# claims, the node, the body (node/, memory)
CLAIM_TAKEN = kind("claim.taken", ID, {}, {"holder": ID, "token": INT, "until": INT})
CLAIM_RELEASED = kind("claim.released", ID, {}, {"holder": ID})
NODE_STARTED = kind(
    "node.started",
    ID,
    {},
    {"genome": TEXT, "work_tree": BOOL, "memory": TEXT, "nerves": TEXT, "token": INT,
     "owner": maybe(ID), "pid": INT, "host": TEXT},
)  # fmt: skip
NODE_STOPPED = kind("node.stopped", ID, {}, {"code": INT, "reason": TEXT, "genome": TEXT})
NODE_BUILD_FAILED = kind("node.build_failed", ID, {}, {"genome": TEXT, "error": TEXT})
NODE_PING_REQUESTED = kind("node.ping.requested", ID)
NODE_PING_ANSWERED = kind("node.ping.answered", ID, {}, {"by": ID, "request": TEXT})
RESTART_REQUESTED = kind("restart.requested", ID)
RESTART_ANSWERED = kind("restart.answered", ID, {}, {"request": TEXT})
BODY_CLAIMED = kind(
    "body.claimed",
    ID,
    {},
    {"holder": ID, "token": INT, "until": INT, "from": maybe(TEXT), "forced": BOOL,
     "owner": maybe(ID)},
)  # fmt: skip
BODY_RELEASED = kind("body.released", ID, {}, {"holder": ID, "token": INT})
BODY_EPOCH = kind("body.epoch", ID, {"n": COUNT}, {"holder": ID})  # record/epochs.py
BODY_PROVISIONED = kind(
    "body.provisioned",
    ID,
    {"host": ID},
    {"address": TEXT, "owner": TEXT, "by": ID, "note": TEXT},
)
POSITION_FILLED = kind(
    "position.filled", ID, {}, {"holder": maybe(ID), "owner": ID, "position": ID}
)
POSITION_VACATED = kind("position.vacated", ID, {}, {"position": ID})
DEFINITION_REGISTERED = kind("definition.registered", ID, {}, {"definition": ID})

# schedules, Reviews and practices (schedules/, record/practices.py)
_TERMS = {"every_ms": INT, "cron": TEXT, "definition": TEXT, "args": ANY, "convener": TEXT}
SCHEDULE_REQUESTED = kind("schedule.requested", ID, {}, {"id": TEXT, "by": ID, **_TERMS})
SCHEDULE_ANSWERED = kind(
    "schedule.answered", ID, {}, {"schedule": TEXT, "declared": BOOL, "why": TEXT,
                                  "unchanged": BOOL}
)  # fmt: skip
SCHEDULE_DECLARED = kind(
    "schedule.declared",
    ID,
    {},
    {"id": ID, **_TERMS, "cadence": TEXT, "occurrence": INT, "mode": TEXT, "request": ID,
     "by": ID, "practice": TEXT, "review": TEXT},
)  # fmt: skip
SCHEDULE_REFUSED = kind(
    "schedule.refused",
    ID,
    {},
    {"id": TEXT, **_TERMS, "reason": TEXT, "hole": TEXT, "request": ID, "by": ID},
)
SCHEDULE_PAUSED = kind("schedule.paused", ID, {}, {"by": ID})
SCHEDULE_RESUMED = kind("schedule.resumed", ID, {}, {"by": ID})
SCHEDULE_RETIRED = kind("schedule.retired", ID, {}, {"convener": ID, "definition": ID})
SCHEDULE_SKIPPED = kind("schedule.skipped", ID, {}, {"occurrence": INT, "at": TEXT, "open": TEXT})
SCHEDULE_MISSED = kind(
    "schedule.missed",
    ID,
    {},
    {"first": INT, "last": INT, "count": COUNT, "from": TEXT, "to": TEXT},
)
SCHEDULE_FAILED = kind(
    "schedule.failed", ID, {}, {"occurrence": INT, "at": TEXT, "ask": TEXT, "reason": TEXT}
)
REVIEW_OPENED = kind(
    "review.opened", ID, {}, {"family": TEXT, "practice": TEXT, "receipt": TEXT, "text": TEXT}
)
REVIEW_DECIDED = kind(
    "review.decided", ID, {}, {"decision": one_of("approved", "rejected"), "by": ID,
                               "practice": TEXT}
)  # fmt: skip
PRACTICE_RATIFIED = kind(
    "practice.ratified", ID, {}, {"receipt": TEXT, "review": TEXT, "by": ID, "step": TEXT}
)
PRACTICE_REFUSED = kind("practice.refused", ID, {}, {"definition": TEXT, "reason": TEXT})
OPTIMIZE_REFUSED = kind("optimize.refused", ID, {}, {"why": TEXT})
ORG_REVIEWED = kind("org.reviewed", ID, {}, {"proposal": maybe(TEXT), "signals": OBJECT})

# readings and concerns (readings/, node/instance.py): key is the target a firing names
READING_TAKEN = kind(
    "reading.taken",
    ID,
    {"kind": ID},
    {"source": one_of("application", "host", "sense"), "detail": TEXT, "protected": DIGEST},
)
READING_ACTED = kind("reading.acted", ID, {"reading": ID, "did": TEXT}, {"pid": INT})
CONCERN_RAISED = kind("concern.raised", ID, {"readings": list_of(ID, 16)}, {"window_s": COUNT})

# the ledger the record may adopt for the legs' rows (ledger/); key: ledger/<request>
LEDGER_ADOPT_REQUESTED = kind("ledger.adopt.requested", ID, {}, {"by": ID})
LEDGER_ADOPT_DONE = kind(
    "ledger.adopt.done", ID, {"epoch": INT, "request": ID}, {"holder": ID, "claim": ID}
)
LEDGER_ADOPT_REFUSED = kind("ledger.adopt.refused", ID, {"why": TEXT}, {"request": ID})
LEDGER_ABANDON_REQUESTED = kind("ledger.abandon.requested", ID, {}, {"by": ID})
LEDGER_ABANDON_DONE = kind(
    "ledger.abandon.done", ID, {"request": ID}, {"carried": COUNT, "epoch": INT, "holder": ID}
)
LEDGER_ABANDON_REFUSED = kind("ledger.abandon.refused", ID, {"why": TEXT}, {"request": ID})

# the record's own
ROW_QUARANTINED = kind("row.quarantined", ID, {"kind": TEXT, "why": TEXT})

# authority (record/signing.py, record/trust.py): a batch's signature, keys bound to identities
SIGNATURE_IDS = 4_096  # ids one row.signed lists; a longer batch is signed in chunks
ROW_SIGNED = kind(
    "row.signed",
    ID,
    {"ids": list_of(ID, SIGNATURE_IDS), "public": TEXT, "record": TEXT, "sig": TEXT},
)
KEY_REGISTERED = kind(
    "key.registered",
    ID,
    {"identity": ID, "public": TEXT, "bound": one_of("genesis", "endorsed", "self", "board")},
)
KEY_REVOKED = kind("key.revoked", ID, {}, {"identity": ID, "why": TEXT})
# a protected body erased, by digest (record/protected.py); key: the row that named it
ROW_REDACTED = kind("row.redacted", ID, {"protected": DIGEST}, {"why": TEXT})
# the Board's grant to a position (record/grants.py): the Review families it decides, until when
GRANT_FAMILIES = 64  # families one grant names
GRANT_GIVEN = kind(
    "grant.given",
    ID,
    {"position": ID, "reviews": list_of(ID, GRANT_FAMILIES)},
    {"until": maybe(INT), "by": ID},
)
GRANT_REVOKED = kind("grant.revoked", ID, {"position": ID}, {"by": ID, "why": TEXT})
# the Board's delegation of endorsing keys (record/delegates.py); key: endorse/<to>, `to` a
# position (`position:<p>`, whoever holds it) or an identity
ENDORSE_DELEGATED = kind("endorse.delegated", ID, {"to": ID}, {"by": ID})
ENDORSE_REVOKED = kind("endorse.revoked", ID, {"to": ID}, {"by": ID, "why": TEXT})
ROW_UNREADABLE = "row.unreadable"  # what the record calls a line that is no row (never written)

# ---- who may write each kind (record/trust.py judges it) ---------------------------
# organization: the organization's node, under its lease; node: a node of an operator;
# leg: a leg, through the head (rows the head writes for it); board: the Board, or a
# position's holder as the kind's rule says; anyone: a request that only asks. Every
# class but anyone needs a key the record binds to a name (endorsed, or genesis).
ORGANIZATION, NODE, LEG, BOARD, ANYONE = "organization", "node", "leg", "board", "anyone"
WRITERS: dict[str, str] = {
    **dict.fromkeys((WORKFLOW_ADMITTED, TASK_BORN, STEP_REGISTERED, ATTEMPT_ADMITTED,
                     ATTEMPT_OUTCOME, WORK_SETTLED, WORKFLOW_SETTLED, WORKFLOW_CANCELLED,
                     CANCEL_ANSWERED, EFFECT_UNRESOLVED, EFFECT_CALLING, EFFECT_CALLED,
                     EFFECT_REDELIVERED, REPLY_REFUSED, MODEL_CALLED, BUDGET_EXHAUSTED,
                     BUDGET_REFUSED, BOARD_CASE, MUTATION_PREPARED, LEG_OFFERED, INTENT_OFFERED,
                     INTENT_REFUSED, ALLOWANCE_ANSWERED, OUTCOME_ANSWERED, DEFINITION_REGISTERED,
                     SCHEDULE_ANSWERED, SCHEDULE_DECLARED, SCHEDULE_REFUSED, SCHEDULE_RETIRED,
                     SCHEDULE_SKIPPED, SCHEDULE_MISSED, SCHEDULE_FAILED, REVIEW_OPENED,
                     PRACTICE_RATIFIED, PRACTICE_REFUSED, OPTIMIZE_REFUSED, ORG_REVIEWED,
                     CONCERN_RAISED, LEDGER_ADOPT_DONE, LEDGER_ADOPT_REFUSED, LEDGER_ABANDON_DONE,
                     LEDGER_ABANDON_REFUSED, ROW_QUARANTINED), ORGANIZATION),
    **dict.fromkeys((CLAIM_TAKEN, CLAIM_RELEASED, NODE_STARTED, NODE_STOPPED, NODE_BUILD_FAILED,
                     NODE_PING_ANSWERED, RESTART_ANSWERED, BODY_CLAIMED, BODY_RELEASED,
                     BODY_PROVISIONED, BODY_EPOCH, READING_ACTED), NODE),
    **dict.fromkeys((ATTEMPT_CLAIMED, ALLOWANCE_REQUESTED, OUTCOME_REQUESTED), LEG),
    **dict.fromkeys((POSITION_FILLED, POSITION_VACATED, SCHEDULE_REQUESTED, SCHEDULE_PAUSED,
                     SCHEDULE_RESUMED, REVIEW_DECIDED, RESTART_REQUESTED, LEDGER_ADOPT_REQUESTED,
                     LEDGER_ABANDON_REQUESTED, KEY_REGISTERED, KEY_REVOKED, ROW_REDACTED,
                     GRANT_GIVEN, GRANT_REVOKED, ENDORSE_DELEGATED, ENDORSE_REVOKED), BOARD),
    # a reading only reports: the organization's readers weigh it (readings/concerns.py)
    **dict.fromkeys((INTENT_REQUESTED, CANCEL_REQUESTED, NODE_PING_REQUESTED, READING_TAKEN,
                     ROW_SIGNED), ANYONE),
}  # fmt: skip


def writer(name: str) -> str:
    """Who may write kind `name`; a kind the table does not name is applied by no part."""
    return WRITERS.get(name, ANYONE)


def example(name: str) -> dict[str, Any]:
    """A body that fits kind `name`: each field it names, an example of its type."""
    spec = KINDS[name]
    return {f: example_of(c) for f, c in {**spec.required, **spec.optional}.items()}


# ---- the check ---------------------------------------------------------------------


def envelope(kind: Any, key: Any, body: Any) -> str:
    """Why a row is not one at all, whatever its kind ("" when it is)."""
    if type(kind) is not str or (
        kind not in KINDS and (len(kind) > MAX_KIND or not _KIND.fullmatch(kind))
    ):  # a kind of the table is one word (checked as it joins it): no pattern to run
        return f"kind is one word with no space, not {shown(kind)}"
    why = ID(key)
    if why:
        return f"key{why}"
    if type(body) is not dict:
        return f"body is a JSON object, not {shown(body)}"
    return ""


def check(kind: Any, key: Any, body: Any) -> str:
    """Why a row with this kind, key and body does not fit the table ("" when it does)."""
    why = envelope(kind, key, body)
    if why:
        return why
    spec = KINDS.get(kind)
    if spec is None:
        return ""
    why = spec.key(key) if spec.key is not ID else ""
    if why:
        return f"key{why}"
    why = _fields_why(body, spec.required, spec.optional, "")
    if not why and spec.whole is not None:
        why = spec.whole(body)
    return why


def check_row(kind: Any, key: Any, body: Any, who: Any, at: Any, clone: Any) -> str:
    """`check`, and the fields every stored row has: who and clone are ids, at a time."""
    if kind == ROW_UNREADABLE:
        return str(body.get("why", "")) if type(body) is dict else "a line that is no row"
    return check(kind, key, body) or check_writer(who, at, clone)


_WRITER_FITS: list[tuple[str, int, str]] = [("", -1, "")]  # the last writer found to fit


def check_writer(who: Any, at: Any, clone: Any) -> str:
    """Why a row's writer fields do not fit: who and clone are ids, at a time.
    A batch's rows share their writer, so the last that fit is kept and its
    equal passes at once (only exact str and int: an equal subclass is checked)."""
    last = _WRITER_FITS[0]
    if type(who) is str and type(clone) is str and type(at) is int:
        if at == last[1] and who == last[0] and clone == last[2]:
            return ""
    if ID(who) or ID(clone):
        return f"who and clone are ids, not {shown(who)} and {shown(clone)}"
    if type(at) is not int or not 0 <= at < MAX_INT:
        return f"at is a time in UTC milliseconds, not {shown(at)}"
    if type(who) is str and type(clone) is str:
        _WRITER_FITS[0] = (who, at, clone)
    return ""
