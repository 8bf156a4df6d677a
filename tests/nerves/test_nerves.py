"""The nerves on the embedded SQLite file and on PostgreSQL LISTEN/NOTIFY:
round trips, prefixes, large bodies, other processes, subject -> topic
dispatch with no bindings, and failures that raise instead of going deaf."""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
import pytest
from pg import fresh_database, shared_postgres

from hale_runtime.memory import open_memory
from hale_runtime.nerves import Dispatcher, NervesFailed, open_nerves, subject_of, topic_of


def hear(subscription, count: int, timeout: float = 2.0) -> list:
    """Poll until `count` messages came (or a poll waited `timeout` for nothing).

    One poll hands over what has arrived; on PostgreSQL each NOTIFY is its
    own message on the socket, so messages published one after another may
    take more than one poll to arrive, under load."""
    got: list = []
    while len(got) < count:
        more = subscription.poll(timeout=timeout)
        if not more:
            break
        got += more
    return got


@pytest.fixture
def nerves(store_dsn):
    opened = open_nerves(store_dsn)
    yield opened
    opened.close()


def test_a_message_goes_round_trip(nerves):
    heard = nerves.subscribe("schedule.")
    other = nerves.subscribe("")
    first = nerves.publish("schedule.requested", {"id": "r1", "every": "1d"})
    nerves.publish("intent.requested", {"id": "i1"})
    second = nerves.publish("schedule.answered", {"id": "r1"})
    got = hear(heard, 2)
    assert [(m.id, m.subject, m.body) for m in got] == [
        (first, "schedule.requested", {"id": "r1", "every": "1d"}),
        (second, "schedule.answered", {"id": "r1"}),
    ]
    assert [m.subject for m in hear(other, 3)] == [
        "schedule.requested",
        "intent.requested",
        "schedule.answered",
    ]
    assert heard.poll(timeout=0.1) == []


def test_a_subscription_hears_only_what_comes_after_it(nerves):
    nerves.publish("schedule.requested", {"n": 1})
    late = nerves.subscribe("schedule")
    nerves.publish("schedule.requested", {"n": 2})
    assert [m.body["n"] for m in late.poll(timeout=2)] == [2]


def test_a_body_past_the_notify_limit_arrives_whole(nerves):
    heard = nerves.subscribe("record.")
    body = {"rows": ["x" * 100] * 200}  # ~21 kB, past NOTIFY's 8000 bytes
    nerves.publish("record.landed", body)
    (message,) = heard.poll(timeout=2)
    assert message.body == body


def test_a_subject_names_its_topic():
    assert topic_of("schedule.requested") == "ScheduleRequested"
    assert topic_of("workflow.cancel_requested") == "WorkflowCancelRequested"
    assert topic_of("node.build-failed") == "NodeBuildFailed"
    assert subject_of("ScheduleRequested") == "schedule.requested"
    for bad in ["", "Schedule.requested", "schedule..requested", "schedule.", "a b"]:
        with pytest.raises(ValueError):
            topic_of(bad)
    with pytest.raises(ValueError):
        subject_of("scheduleRequested")


def test_a_message_reaches_the_topic_its_subject_names(nerves):
    dispatcher = Dispatcher()
    requested, answered = [], []
    dispatcher.on("ScheduleRequested", requested.append)

    @dispatcher.on("ScheduleAnswered")
    def on_answer(message):
        answered.append(message.body)

    heard = nerves.subscribe("")
    nerves.publish("schedule.requested", {"id": "r1"})
    nerves.publish("schedule.answered", {"id": "r1"})
    nerves.publish("intent.requested", {"id": "i1"})  # no subscription: nobody hears it
    handled = 0
    for message in hear(heard, 3):  # the third is heard and handed to no topic
        handled += dispatcher.dispatch(message)
    assert handled == 2
    nerves.publish("schedule.requested", {"id": "r2"})
    assert dispatcher.pump(heard, timeout=2) == 1  # poll and dispatch, in one call
    assert [m.body for m in requested] == [{"id": "r1"}, {"id": "r2"}]
    assert answered == [{"id": "r1"}]
    assert dispatcher.topics() == ["ScheduleAnswered", "ScheduleRequested"]


def test_a_message_crosses_processes(nerves, store_dsn):
    heard = nerves.subscribe("schedule.")
    script = (
        "import sys; from hale_runtime.nerves import open_nerves; "
        "n = open_nerves(sys.argv[1]); "
        "print(n.publish('schedule.requested', {'from': 'child', 'n': int(sys.argv[2])}))"
    )
    ids = []
    for n in range(3):
        done = subprocess.run(
            [sys.executable, "-c", script, store_dsn, str(n)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        ids.append(int(done.stdout))
    got = []
    while len(got) < 3:
        more = heard.poll(timeout=2)
        assert more, f"heard only {got}"
        got += more
    assert [(m.id, m.body) for m in got] == [
        (i, {"from": "child", "n": n}) for n, i in enumerate(ids)
    ]


def test_a_subject_that_is_not_one_is_refused(nerves):
    with pytest.raises(ValueError):
        nerves.publish("Schedule Requested", {})
    with pytest.raises(TypeError):
        nerves.publish("schedule.requested", {"when": object()})


def test_nerves_without_a_schema_fail_loudly(tmp_path):
    nerves = open_nerves(tmp_path / "never-migrated.sqlite3")
    with pytest.raises(NervesFailed, match="no such table"):
        nerves.publish("schedule.requested", {})
    with pytest.raises(NervesFailed):
        nerves.subscribe("schedule.")


def test_closed_embedded_nerves_fail_loudly(tmp_path):
    path = tmp_path / "memory.sqlite3"
    with open_memory(path) as store:
        store.migrate()
    nerves = open_nerves(path)
    heard = nerves.subscribe("")
    nerves.close()
    with pytest.raises(NervesFailed):
        nerves.publish("schedule.requested", {})
    with pytest.raises(NervesFailed):
        heard.poll()


def test_a_lost_postgresql_connection_fails_loudly():
    store_dsn = fresh_database(shared_postgres())
    with open_memory(store_dsn) as store:
        store.migrate()
    nerves = open_nerves(store_dsn)
    heard = nerves.subscribe("")
    with psycopg.connect(store_dsn, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    with pytest.raises(NervesFailed):
        heard.poll(timeout=2)
    with pytest.raises(NervesFailed):
        nerves.publish("schedule.requested", {})


def test_an_unreachable_postgresql_fails_at_once():
    with pytest.raises(NervesFailed, match="cannot reach nerves"):
        open_nerves("postgresql://postgres@127.0.0.1:1/none")


def test_bodies_are_json(nerves):
    heard = nerves.subscribe("")
    nerves.publish("a.b", {"list": [1, 2.5, None, True], "nested": {"é": "ü"}})
    assert json.dumps(heard.poll(timeout=2)[0].body, sort_keys=True) == json.dumps(
        {"list": [1, 2.5, None, True], "nested": {"é": "ü"}}, sort_keys=True
    )
