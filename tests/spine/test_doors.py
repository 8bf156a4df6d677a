"""The spine's new doors, hostile: any body a cancel request or a person's
resolve may carry, and any answer an endpoint may give the HTTP service.
Whatever comes, nothing raises, a request is answered at most once, and the
answer says why when it refuses."""

from __future__ import annotations

from pathlib import Path

from engine_helpers import HandClock, Org, Scripted, catalog_of, make_project, work  # noqa: E402
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_runtime.asks.settle import Settler  # noqa: E402
from hale_runtime.engine.cancel import ANSWERED, REQUESTED, Canceller  # noqa: E402
from hale_runtime.nerves import Message  # noqa: E402
from hale_runtime.node.relay import message_of  # noqa: E402
from hale_runtime.performers import FAILED, SUCCEEDED  # noqa: E402
from hale_runtime.performers.http_service import _answer  # noqa: E402
from hale_runtime.record.errors import RowRefused  # noqa: E402

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
BODIES = st.dictionaries(st.sampled_from(["task", "by", "outcome", "note", "resolved_by", "x"]),
                         JSON, max_size=4)  # fmt: skip
SLOW = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


def written(record, kind: str, key: str, body: dict):
    """The row appended; None when the record refuses it at the door (it does
    not fit its kind, or is no row at all), and then nothing was written."""
    before = record.cursor()
    try:
        return record.append(kind, key, body)
    except RowRefused:
        assert record.cursor() == before
        return None


def one_case(c) -> None:
    assert c.define("one", 1, "record", "a case") == ""
    assert c.leaf("one", 1, 0, "p", work("decide it", "person"), 1) == ""


def engine_with_a_case(tmp_path: Path):
    org = Org(make_project(tmp_path / f"p{len(list(tmp_path.iterdir()))}"), HandClock())
    org.plugins = (Scripted("service"),)
    e = org.engine()
    e.admit(catalog_of(one_case).bind("one"), "ask", "leader")
    e.pump()
    return org, e


@SLOW
@given(body=BODIES)
def test_any_cancel_request_is_answered_once_and_never_raises(tmp_path, body):
    org, e = engine_with_a_case(tmp_path)
    row = written(e.record, REQUESTED, "cr-hostile", body)
    if row is None:
        return
    canceller = Canceller(e.record, e)
    said = canceller.on_cancel_requested(Message(1, row.kind, message_of(row)))
    assert canceller.on_cancel_requested(Message(2, row.kind, message_of(row))) == "answered before"
    (answer,) = org.rows(kind=ANSWERED)
    cancelled = body.get("task") == "t1"
    assert answer.body["cancelled"] is cancelled and (said == "cancelled t1") is cancelled
    assert bool(answer.body["why"]) is not cancelled
    assert bool(org.rows(kind="workflow.cancelled")) is cancelled


@SLOW
@given(body=BODIES)
def test_any_resolve_of_a_case_settles_it_at_most_once_as_succeeded_or_failed(tmp_path, body):
    org, e = engine_with_a_case(tmp_path)
    row = written(e.record, "attempt.outcome.requested", "t1/wf1/s0/p/a0", body)
    if row is None:
        return
    settler = Settler(e.record, e)
    settler.on_outcome_requested(Message(1, row.kind, message_of(row)))
    assert settler.on_outcome_requested(Message(2, row.kind, message_of(row))) == "answered before"
    outcomes = org.rows(kind="attempt.outcome")
    (answered,) = org.rows(kind="attempt.outcome.answered")
    fit = (
        isinstance(body.get("resolved_by"), str)
        and body.get("outcome") in (SUCCEEDED, FAILED)
        and isinstance(body.get("note", ""), str)
    )
    if body.get("resolved_by") and fit:
        (outcome,) = outcomes
        assert outcome.body["outcome"] == body["outcome"] == answered.body["settled"]
        assert outcome.body["resolved_by"] == body["resolved_by"]
    elif body.get("resolved_by"):
        assert outcomes == [] and answered.body["why"].startswith("a resolve")
    else:  # not a person's resolve: a leg's outcome for a person's case is refused
        assert outcomes == []
        assert answered.body["why"] == "t1/wf1/s0/p/a0 was admitted to the person, not to a leg"


@given(raw=st.binary(max_size=64) | JSON.map(lambda v: __import__("json").dumps(v).encode()))
def test_any_answer_an_endpoint_gives_is_an_outcome(raw):
    outcome, detail = _answer(raw)
    assert outcome in (SUCCEEDED, FAILED) and isinstance(detail, str)
