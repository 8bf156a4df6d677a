"""`hale dna show TASK` prints the execution tree; `hale dna history TASK`
shows the execution's rows. Outputs pinned with syrupy."""

from __future__ import annotations

from click.testing import CliRunner
from engine_helpers import HandClock, Org, Scripted, catalog_of, close_month, make_project, work
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_runtime.cli import hale
from hale_runtime.performers import FAILED, UNKNOWN, Reconciled


def run(org, monkeypatch, *args: str):
    monkeypatch.chdir(org.root)
    return CliRunner().invoke(hale, ["dna", *args])


def test_show_prints_the_tree(org, monkeypatch, snapshot):
    org.plugins = (Scripted("agent", {"t1/wf1/s0/a/a0": FAILED}),)
    e = org.engine()
    inputs = {"period": "2026-11"}
    e.admit(catalog_of(close_month).bind("close-month", inputs=inputs), "ask-1", "leader", inputs)
    e.pump()
    r = run(org, monkeypatch, "show", "t1")
    assert r.exit_code == 0
    assert r.output == snapshot(name="running")
    e.reply("t1/wf1/s1/post/a0", "person", FAILED, "the books do not balance")
    e.pump()
    assert run(org, monkeypatch, "show", "t1").output == snapshot(name="failed")
    assert run(org, monkeypatch, "show", "t1.s0.b").output == snapshot(name="child")


def test_show_refuses_a_task_not_in_the_record(org, monkeypatch):
    r = run(org, monkeypatch, "show", "t9")
    assert r.exit_code == 1 and r.stderr == "hale: no task t9 in the record\n"


def test_history_shows_an_executions_rows(org, monkeypatch, snapshot):
    def one(c):
        assert c.define("one", 1, "record", "one leaf") == ""
        assert c.leaf("one", 1, 0, "plan", work("plan it", "organism"), 1) == ""

    e = org.engine()
    e.admit(catalog_of(one).bind("one"), "ask-1", "leader")
    e.pump()
    r = run(org, monkeypatch, "history", "t1")
    assert r.exit_code == 0
    assert r.output == snapshot


def test_show_marks_steps_not_yet_active_and_attempts_waiting_for_a_person(
    org, monkeypatch, snapshot
):
    agent = Scripted("agent", {"t1/wf1/s0/a/a0": "later", "t1.s0.b/wf1/s0/think/a0": "later"})
    agent.reconcile_as = Reconciled(UNKNOWN)
    org.plugins = (agent,)
    e = org.engine()
    inputs = {"period": "2026-11"}
    e.admit(catalog_of(close_month).bind("close-month", inputs=inputs), "ask-1", "leader", inputs)
    e.pump()
    org.engine().pump()  # a restart: the agent cannot say whether it acted
    assert run(org, monkeypatch, "show", "t1").output == snapshot


# ---- by key, as a scan says (hypothesis) ------------------------------------------


def _one(c):
    assert c.define("one", 1, "record", "one leaf") == ""
    assert c.leaf("one", 1, 0, "plan", work("plan it", "organism"), 1) == ""


NEIGHBOURS = ["t1x", "t1.s0.b/wf9", "t10/wf1/s0/plan/a0", "t1/wf1/s0/a/a9", "t2.s0.b", "t"]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(steps=st.lists(st.sampled_from(["one", "close", "fail", "noise", "persist"]),
                      min_size=1, max_size=14))  # fmt: skip
def test_show_by_key_prints_what_a_scan_of_the_record_prints(tmp_path_factory, steps) -> None:
    """Any run of executions (one-leaf and with a child, failed or not, ten and
    more so `t1` meets `t10`), rows of other kinds beside their keys, moved
    into the index or not: `show` through the index is `show` from a scan."""
    from hale_runtime.engine.show import shown, shown_by_scan
    from hale_runtime.record import Record

    org = Org(make_project(tmp_path_factory.mktemp("show") / "project"), HandClock())
    org.plugins = (Scripted("agent", {}),)
    e, n = org.engine(), 0
    for step in steps:
        if step in ("one", "close"):
            n += 1
            build, name = (_one, "one") if step == "one" else (close_month, "close-month")
            inputs = {"period": "2026-11"} if step == "close" else {}
            e.admit(catalog_of(build).bind(name, inputs=inputs), f"ask-{n}", "leader", inputs)
        elif step == "fail" and n:
            e.reply(f"t{n}/wf1/s0/a/a0", "person", FAILED, "no")
        elif step == "noise":
            e.record.append_many([("note.made", key, {"n": n}) for key in NEIGHBOURS])
            started = {"owner": f"owner{n}", "holder": e.record.who}  # the admitter's owner now
            e.record.append("node.started", f"node/{e.record.who}", started)
        elif step == "persist":
            e.record.close()  # its stamped rows move into the index
            e = org.engine()
        e.pump()
    record = Record.open(org.root)
    rows = record.rows()
    tasks = {r.key for r in rows if r.kind == "workflow.admitted"}
    for task in sorted(tasks | {f"t{i}" for i in range(n + 2)} | {"t1.s0.b"}):
        assert shown(record, task) == shown_by_scan(rows, task), task
