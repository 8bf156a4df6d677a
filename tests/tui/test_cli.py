"""`hale dna debug`: what the command opens, and what it refuses."""

from __future__ import annotations

from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.tui.app import DebugApp


def invoke(project, monkeypatch, *args: str):
    opened = []
    monkeypatch.setattr(DebugApp, "run", lambda app: opened.append(app))
    monkeypatch.setattr("hale_runtime.cli.debug.terminal_missing", lambda: "")
    monkeypatch.chdir(project)
    return CliRunner().invoke(hale, ["dna", "debug", *args]), opened


def test_debug_opens_a_task_on_its_own_rows(project, monkeypatch, rows):
    args = ["t2", "--break-kind", "work.settled", "--hl-break", "scheduler.hl:240"]
    result, (app,) = invoke(project, monkeypatch, *args)
    assert result.exit_code == 0, result.output
    t2 = [r for r in rows if r.key.split("/")[0].split(".")[0] == "t2"]
    assert [r.seq for r in app.model.rows] == [r.seq for r in t2] and app.model.row.seq == 14
    assert app.model.tree_task == "t2" and app.model.break_kinds == {"work.settled"}
    assert app.hl_breaks == {("scheduler.hl", 240)}
    assert app.source is not None and app.source(len(t2)) == []


def test_debug_without_a_task_opens_the_whole_record(project, monkeypatch, rows):
    result, (app,) = invoke(project, monkeypatch)
    assert result.exit_code == 0, result.output
    assert len(app.model.rows) == len(rows) and app.source(len(rows)) == []


def test_debug_refuses_an_unknown_task_and_a_bad_breakpoint(project, monkeypatch):
    result, opened = invoke(project, monkeypatch, "t9")
    assert result.exit_code == 1 and "no task t9 in the record" in result.output
    result, opened = invoke(project, monkeypatch, "--hl-break", "scheduler.hl")
    assert result.exit_code == 1 and "a breakpoint is <file.hl>:<line>" in result.output
    assert opened == []


def test_debug_outside_a_project_refuses(tmp_path, monkeypatch):
    result, _ = invoke(tmp_path, monkeypatch)
    assert result.exit_code == 1 and "not inside a hale project" in result.output


def test_the_budget_pane_folds_with_the_genomes_org_budget(tmp_path, monkeypatch):
    from hale_runtime.engine.budget import BudgetPolicy

    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(hale, ["dna", "new", "p"]).exit_code == 0
    result, (app,) = invoke(tmp_path / "p", monkeypatch)
    assert result.exit_code == 0, result.output
    assert app.model.budget.policy == BudgetPolicy("day", 25_000_000)
    result, (app,) = invoke(tmp_path / "p", monkeypatch, "--allowance", "5")
    assert app.model.budget.policy == BudgetPolicy("day", 5)


def test_debug_fn_steps_a_genome_fn(tmp_path, monkeypatch):
    import scenario

    root = scenario.with_sums(tmp_path / "p")
    args = ["--fn", "dna/org/sums.hl:total", "--arg", "[4, 5]", "--hl-break", "sums.hl:11"]
    result, (app,) = invoke(root, monkeypatch, *args)
    assert result.exit_code == 0, result.output
    assert app._trace_at_start.result == "18" and app.hl_breaks == {("sums.hl", 11)}
    result, opened = invoke(root, monkeypatch, "--fn", "dna/org/sums.hl:nope")
    assert result.exit_code == 1 and "no fn `nope` in `dna/org/sums.hl`" in result.output
    result, opened = invoke(root, monkeypatch, "--fn", "dna/org/sums.hl:total", "--arg", "[")
    assert result.exit_code == 1 and "--arg 1 is not JSON" in result.output
    assert opened == []
