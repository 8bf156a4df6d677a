"""`hale dna show TASK` prints the execution tree; `hale dna history TASK`
shows the execution's rows. Outputs pinned with syrupy."""

from __future__ import annotations

from click.testing import CliRunner
from engine_helpers import Scripted, catalog_of, close_month, work

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
