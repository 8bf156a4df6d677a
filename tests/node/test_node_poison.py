"""Poison through a running organism (`hale dna dev`, the real CLI, the real head).

Each reproduction of issue 12 is written here as it broke: a declaration
that cannot stand (a cron that never occurs, an id of two lines, an
interval the tick cannot keep) and a leg's outcome whose numbers are text.
The verb or the head refuses what it can check, writing nothing; what gets
into the record past them (an older client's request, a hostile clone's
rows) is refused as a row or quarantined once; and every test ends with
the organism still admitting work. The last one restarts the node over all
of it.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hostile import ORG, append_lines, line, row_id
from node_helpers import FAST, HALE, Node, wait_for

from hale_runtime.record import Record, Row
from hale_runtime.record import kinds as k
from hale_runtime.schedules.terms import Terms

ENV = {**FAST, "HALE_DNA_LEASE_S": "5", "HALE_DNA_ANSWER_WAIT": "30"}


def hale(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **ENV}
    return subprocess.run([*HALE, *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=90)  # fmt: skip


@pytest.fixture(scope="module")
def organism(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Node]]]:
    tmp = tmp_path_factory.mktemp("poison")
    assert hale(tmp, "dna", "new", "p").returncode == 0
    root = tmp / "p"
    running = [Node(root, "dev", ENV)]
    running[0].wait_running()
    yield root, running
    for node in running:
        node.kill()


def admits(root: Path) -> None:
    """The organism still admits work: an ask is born a task."""
    said = hale(root, "dna", "task", "create", "--judgment", "does the organism still admit work")
    assert said.returncode == 0 and " born: ask-judge@1 for ask i-" in said.stdout, said


def rows(root: Path, kind: str) -> list[Row]:
    return Record.open(root).rows(kind=kind)


def quarantine_of(root: Path, bad: str) -> Row:
    """The one `row.quarantined` row for the row whose id is `bad` (waited for)."""
    found = wait_for(lambda: [r for r in rows(root, k.ROW_QUARANTINED) if r.key == bad], 20,
                     f"row {bad[:12]} quarantined")  # fmt: skip
    assert len(found) == 1
    return found[0]


def answer_to(root: Path, request: str) -> Row:
    found = wait_for(lambda: [r for r in rows(root, k.SCHEDULE_ANSWERED) if r.key == request], 20,
                     f"an answer to {request}")  # fmt: skip
    return found[0]


def asked_schedules(root: Path) -> int:
    return len(rows(root, k.SCHEDULE_REQUESTED))


def old_request(root: Path, request: str, terms: Terms) -> None:
    """A request as an older client wrote it: it fits its kind, its terms cannot stand."""
    Record.open(root).append(k.SCHEDULE_REQUESTED, request, {**terms.as_body(), "by": "old@c:1"})


def declared(terms: Terms) -> str:
    """A `schedule.declared` line an organization's key signs (`append_lines(signed=True)`):
    it fits its kind, not the Scheduler."""
    return line(k.SCHEDULE_DECLARED, terms.id, {**terms.as_body(), "occurrence": 0}, who=ORG)


def test_reproduction_1_a_cron_that_never_occurs(organism) -> None:
    root, _ = organism
    asked = asked_schedules(root)
    said = hale(root, "dna", "schedule", "declare", "feb30", "--cron", "0 0 30 2 *",
                "--definition", "optimize-walk", "--convener", "leader")  # fmt: skip
    assert said.returncode == 1
    never = "the cron `0 0 30 2 *` never occurs: no minute in the next 8 years matches it"
    assert said.stdout == f"schedule declare: refused: {never}\n"
    assert asked_schedules(root) == asked  # nothing written
    old_request(root, "sr-000000000001", Terms("apr31", 0, "0 0 31 4 *", "optimize-walk", "{}",
                                               "position:leader"))  # fmt: skip
    feb30 = declared(Terms("feb30", 0, "0 0 30 2 *", "optimize-walk", "{}", "position:leader"))
    append_lines(root, [feb30], signed=True)
    answer = answer_to(root, "sr-000000000001")
    assert not answer.body["declared"] and "`0 0 31 4 *` never occurs" in answer.body["why"]
    assert [r.key for r in rows(root, k.SCHEDULE_REFUSED)] == ["apr31"]
    poison = quarantine_of(root, row_id(feb30))
    assert poison.body["kind"] == k.SCHEDULE_DECLARED and never in poison.body["why"]
    assert "feb30" not in hale(root, "dna", "schedule").stdout
    admits(root)


def test_reproduction_2_an_id_that_is_not_one_line(organism) -> None:
    root, _ = organism
    asked = asked_schedules(root)
    said = hale(root, "dna", "schedule", "declare", "a\nb", "--every", "3600000",
                "--definition", "optimize-walk", "--convener", "editor")  # fmt: skip
    assert said.returncode == 1 and said.stdout.count("\n") == 1
    assert said.stdout.startswith("schedule declare: refused: the schedule id is one line")
    assert asked_schedules(root) == asked
    old_request(root, "sr-000000000002", Terms("a\nb", 3_600_000, "", "optimize-walk", "{}",
                                               "position:editor"))  # fmt: skip
    answer = answer_to(root, "sr-000000000002")
    assert not answer.body["declared"] and "one line" in answer.body["why"]
    refused = [r for r in rows(root, k.SCHEDULE_REFUSED) if r.body["id"] == "a\nb"]
    assert [r.key for r in refused] == ["sr-000000000002"]  # the id could key no row
    admits(root)


def test_reproduction_8_an_interval_shorter_than_the_tick(organism) -> None:
    root, _ = organism
    asked = asked_schedules(root)
    said = hale(root, "dna", "schedule", "declare", "fast", "--every", "100",
                "--definition", "optimize-walk", "--convener", "leader")  # fmt: skip
    assert said.returncode == 1
    assert said.stdout == (
        "schedule declare: refused: an interval is at least 1000 ms (a node ticks once a"
        " second), and 100 ms could not be kept\n"
    )
    assert asked_schedules(root) == asked
    old_request(root, "sr-000000000008", Terms("fast", 100, "", "optimize-walk", "{}",
                                               "position:leader"))  # fmt: skip
    assert "could not be kept" in answer_to(root, "sr-000000000008").body["why"]
    fast = declared(Terms("faster", 100, "", "optimize-walk", "{}", "position:leader"))
    append_lines(root, [fast], signed=True)
    assert "could not be kept" in quarantine_of(root, row_id(fast)).body["why"]
    time.sleep(1.5)  # ticks pass: a held 100 ms schedule would be missing occurrences now
    assert not [r for r in rows(root, k.SCHEDULE_MISSED) if r.key in ("fast", "faster")]
    admits(root)


def _post(head: dict, method: str, params: dict) -> tuple[int, dict]:
    parts = urlsplit(head["url"])
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("POST", "/", json.dumps({"method": method, "params": params}),
                 {"Authorization": f"Bearer {head['token']}",
                  "Hale-Leg": head.get("credential", "")})  # fmt: skip
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def test_reproduction_3_a_legs_numbers_that_are_text(organism) -> None:
    root, _ = organism
    admits(root)  # a judgment: a leg's attempt
    claimed = hale(root, "dna", "work", "next")
    assert claimed.returncode == 0, claimed.stderr
    attempt, leg = claimed.stdout.split()[1], claimed.stdout.split("leased to ")[1].split()[0]
    held = json.loads(next((root / ".git" / "hale" / "legs").glob("*.json")).read_text())
    head = json.loads((root / ".git" / "hale" / "head.json").read_text())
    head["credential"] = next((root / ".git" / "hale" / "legs").glob("*.key")).read_text()
    lease = {"leg": leg.rstrip(",;"), "attempt": attempt, "token": held["token"]}
    asked = len(rows(root, k.OUTCOME_REQUESTED))
    status, answer = _post(head, "dna.attempt.outcome",
                           {**lease, "outcome": "succeeded", "calls": [{"micros": "lots"}]})  # fmt: skip
    assert status == 400
    assert answer["error"].startswith("refused: calls[0].micros is a whole number, 0 or more, not")
    assert len(rows(root, k.OUTCOME_REQUESTED)) == asked  # nothing written
    status, _ = _post(head, "dna.attempt.renew", {**lease, "token": 1})
    assert status == 400
    lots = line(k.OUTCOME_REQUESTED, attempt, {**lease, "outcome": "succeeded",
                                               "calls": [{"micros": "lots"}]})  # fmt: skip
    append_lines(root, [lots])
    assert "micros" in quarantine_of(root, row_id(lots)).body["why"]
    assert not rows(root, k.OUTCOME_ANSWERED) or all(
        r.key != attempt for r in rows(root, k.OUTCOME_ANSWERED)
    )
    submitted = hale(root, "dna", "work", "submit", "--outcome", "succeeded")
    assert submitted.returncode == 0 and "settled succeeded" in submitted.stdout, submitted
    admits(root)


def test_a_decision_the_board_did_not_sign_is_quarantined_and_never_ratified(organism) -> None:
    """A decision pushed past the verb, naming the Board's holder but signed
    by another key, is refused as it joins the chain: the organization
    answers it with its reason, and no practice-ratify execution starts."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from hale_runtime.record.keys import SigningKey
    from hale_runtime.record.signing import key_of, signature_body
    from hale_runtime.schedules.ratify import ask_of

    root, _ = organism
    record = Record.open(root)
    review = rows(root, k.REVIEW_OPENED)[-1].key
    other = SigningKey(Ed25519PrivateKey.generate(), root)
    body = {"decision": "approved", "by": record.who, "practice": "forged"}
    decision = line(k.REVIEW_DECIDED, review, body, who=record.who)
    signed = signature_body(other, record.trust.record, [row_id(decision)])
    append_lines(root, [line(k.ROW_SIGNED, key_of(other.fingerprint), signed), decision])
    why = quarantine_of(root, row_id(decision)).body["why"]
    assert why == (
        f"refused: {review} is signed by {other.fingerprint}, which the record does not bind "
        f"to {record.who.partition('@')[0]}"
    )
    admits(root)
    assert Record.open(root).admission(ask_of(review)) is None
    assert [r for r in rows(root, k.REVIEW_DECIDED) if r.key == review] == []


def test_status_counts_the_quarantine_and_a_restart_writes_nothing_twice(organism) -> None:
    root, running = organism
    before = len(rows(root, k.ROW_QUARANTINED))
    step = line(k.STEP_REGISTERED, "t99/wf1/s0", {}, who=ORG)  # fits; no task t99 was admitted
    append_lines(root, [step], signed=True)
    assert "KeyError" in quarantine_of(root, row_id(step)).body["why"]
    listed = hale(root, "dna", "history", "--kind", "row.quarantined").stdout.splitlines()
    assert len(listed) == before + 1
    assert all(entry.startswith("row.quarantined ") for entry in listed)
    assert f"quarantined: {before + 1} row" in hale(root, "dna", "status").stdout
    assert running[0].stop() == 0
    running.append(Node(root, "dev", ENV))
    running[-1].wait_running()
    admits(root)
    assert len(rows(root, k.ROW_QUARANTINED)) == before + 1
    assert "Traceback" not in running[0].log() + running[-1].log()
