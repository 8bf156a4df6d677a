"""The head's reads (the record, memory's graph, one Work's hat) and step 7's word."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest
from ask_helpers import Project
from waiting import wait_for

from hale_runtime.engine.show import fold_root
from hale_runtime.head import HeadClient, HeadError, HeadRefused, HeadServer, open_head_for
from hale_runtime.node.settings import Settings
from hale_runtime.record import Record
from hale_runtime.record.identity import NODE_ENV

ATTEMPT = "t1/wf1/s0/j/a0"


@pytest.fixture
def served(project: Project) -> Iterator[HeadServer]:
    project.memory().close()
    server = HeadServer(open_head_for(project.root, str(project.memory_path), "org@box:c0ffee00"))
    server.start()
    yield server
    server.stop()


def _authorized(server: HeadServer) -> urllib.request.Request:
    return urllib.request.Request(server.url, headers={"Authorization": f"Bearer {server.token}"})


def _rows(project: Project, n: int) -> list[dict]:
    record = project.record()
    for i in range(n):
        record.append("thing.noted" if i % 2 else "other.noted", f"k/{i % 3}/{i}", {"i": i})
    return [r.as_json() for r in Record.open(project.root).rows()]


def test_the_record_is_read_page_by_page_from_a_cursor(project: Project) -> None:
    written = _rows(project, 7)
    end = Record.open(project.root).cursor()  # past the rows: each batch's signature too
    head, seen, cursor = project.head(), [], 0
    while True:
        page = head.call("dna.record.read", {"since": cursor, "limit": 3})
        seen += page["rows"]
        assert page["cursor"] == (seen[-1]["seq"] if page["more"] else end)
        cursor = page["cursor"]
        if not page["more"]:
            break
    assert seen == written and cursor == end
    again = head.call("dna.record.read", {"since": cursor})
    assert again == {"rows": [], "cursor": end, "more": False, "landed": end}


def test_a_record_read_narrows_by_kind_and_key_prefix(project: Project) -> None:
    written = _rows(project, 9)
    head = project.head()
    page = head.call("dna.record.read", {"kind": "thing.noted", "key_prefix": "k/1/"})
    want = [r for r in written if r["kind"] == "thing.noted" and r["key"].startswith("k/1/")]
    end = Record.open(project.root).cursor()
    assert page["rows"] == want and want and page["cursor"] == end and not page["more"]
    first = head.call("dna.record.read", {"kind": "thing.noted", "limit": 1})
    assert first["rows"] == [written[1]] and first["cursor"] == written[1]["seq"]
    assert first["more"]
    for bad in ({"limit": 0}, {"since": -1}, {"since": "3"}, {"kind": 4}):
        with pytest.raises(HeadRefused, match="refused"):
            head.call("dna.record.read", bad)


def test_a_record_read_gives_stamped_rows_only(project: Project, tmp_path: Path) -> None:
    pygit2.init_repository(str(tmp_path / "remote.git"), bare=True)
    pygit2.Repository(str(project.root)).remotes.create("origin", str(tmp_path / "remote.git"))
    record = project.record()
    a = record.append("thing.noted", "a", {})
    record.sync()
    record.append("thing.noted", "b", {})  # not pushed: not stamped
    page = project.head().call("dna.record.read", {})
    assert [r["key"] for r in page["rows"]] == ["a"] and page["cursor"] == a.seq
    record.sync()
    assert [r["key"] for r in project.head().call("dna.record.read", {})["rows"]] == ["a", "b"]


def test_the_graph_is_memory_as_it_stands(project: Project) -> None:
    memory = project.memory()
    memory.set_holder("leader", "ann")
    memory.set_holder("board", None)
    memory.upsert_node("definition:close", "definition", {"rev": 2})
    memory.upsert_node("node:n1", "node", {})
    memory.upsert_edge("position:leader", "convenes", "definition:close", {"every": "1d"})
    graph = project.head().call("dna.graph.read", {})
    assert graph["positions"] == [
        {"name": "board", "holder": None},
        {"name": "leader", "holder": "ann"},
    ]
    assert {"id": "definition:close", "kind": "definition", "props": {"rev": 2}} in graph["nodes"]
    assert graph["edges"] == [
        {"src": "position:leader", "kind": "convenes", "dst": "definition:close",
         "props": {"every": "1d"}},
    ]  # fmt: skip
    narrowed = project.head().call("dna.graph.read", {"node_kind": "node"})
    assert [n["id"] for n in narrowed["nodes"]] == ["node:n1"]


def test_a_works_hat_is_its_brief_state_and_the_practices_for_org(project: Project) -> None:
    project.node(leader=False).offer("i-0", objective="judge thing 0", judgment=True)
    record = project.record()
    org = record.put_receipt({"kind": "practice", "target": "org", "text": "small steps"})
    leg = record.put_receipt({"kind": "practice", "target": "leg", "text": "not for org"})
    record.append("practice.ratified", "operating/small", {"receipt": org})
    record.append("practice.ratified", "operating/leg", {"receipt": leg})
    task = fold_root(Record.open(project.root).rows(), "t1").tasks["t1"]
    head = project.head()
    hat = head.call("dna.work.hat", {"id": ATTEMPT})  # no leg, no lease
    assert hat["attempt"] == ATTEMPT and hat["task"] == "t1" and hat["ask"] == "i-0"
    assert hat["convener"] == task.convener and task.convener
    assert hat["definition"] == task.plan.name and hat["state"] == "running"
    assert hat["practices"] == ["operating/small: small steps"]
    (work,) = hat["works"]
    assert work["work"] == "t1/wf1/s0/j" and work["objective"] == "judge thing 0"
    assert work["requires"] == ["judgment"] and work["outcome"] is None
    assert [a["attempt"] for a in work["attempts"]] == [ATTEMPT]
    assert work["attempts"][0]["performer"] == "agent"
    by_task = head.call("dna.work.hat", {"id": "t1"})
    assert by_task["works"] == hat["works"] and by_task["attempt"] is None
    assert head.call("dna.work.hat", {"id": "t1/wf1/s0/j"})["works"] == hat["works"]
    for bad, why in (("t9", "no task t9"), ("t1/wf1/s0/zz", "no Work or attempt"), ("", "names")):
        with pytest.raises(HeadRefused, match=why):
            head.call("dna.work.hat", {"id": bad})


def test_reads_over_http_and_the_internal_calls_are_not_callable(
    project: Project, served: HeadServer
) -> None:
    project.node(leader=False).offer("i-0", objective="judge thing 0", judgment=True)
    project.memory().set_holder("leader", "ann")
    client = HeadClient(served.url, served.token)
    page = client.read_record(limit=2)
    rows = Record.open(project.root).rows()
    assert page["rows"] == [r.as_json() for r in rows[:2]]
    assert client.read_record(since=page["cursor"])["rows"][0]["seq"] == rows[2].seq
    assert {"name": "leader", "holder": "ann"} in client.read_graph()["positions"]
    assert client.work_hat(ATTEMPT)["works"][0]["objective"] == "judge thing 0"
    with pytest.raises(HeadError, match="no task t9"):
        client.work_hat("t9")
    with pytest.raises(HeadError, match="no such call head.landed"):
        client.call("head.landed", seq=10**6)
    methods = json.loads(urllib.request.urlopen(_authorized(served)).read())["methods"]
    assert {"dna.record.read", "dna.graph.read", "dna.work.hat", "dna.attempt.claim"} <= set(
        methods
    )
    client.close()


def test_what_a_node_landed_reaches_its_head(
    project: Project, served: HeadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hale_runtime.node.host import Host

    monkeypatch.setenv(NODE_ENV, "org@box:c0ffee00")
    dsn = str(project.memory_path)
    host = Host(project.root, Settings(), dsn, dsn, say=lambda _: None)
    host.heads.append(served.tell)  # what Host.start registers for the head it starts
    client = HeadClient(served.url, served.token)
    assert client.read_record()["landed"] == 0
    _rows(project, 4)
    end = Record.open(project.root).cursor()  # 4 rows, each after its batch's signature
    host.record.refresh()  # what steps 2 to 4 do, reading the record
    host._tell_heads()  # step 7: queued for the head's worker, not waited for
    assert host.landed == end
    wait_for(lambda: client.read_record()["landed"] == end, 60, "the head hearing what landed")
    host._tell_heads()  # nothing new: nothing told, and nothing forgotten
    assert client.read_record()["landed"] == end
    client.close()
