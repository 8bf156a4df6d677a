"""What a user meets at the command line: refusals in one line with exit 1
(nothing written), the debugger without a terminal, `-h`, completion scripts,
and `hale check`'s output formats. Through the installed command where the
process is the point, in-process elsewhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.record import Record

HALE = shutil.which("hale") or str(Path(__file__).resolve().parents[2] / ".venv/bin/hale")


def run(root: Path, *args: str):
    old = Path.cwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(hale, list(args))
    finally:
        os.chdir(old)


def refused_in_one_line(result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hale: "), result.stderr
    return lines[0]


def test_cancel_of_a_task_the_record_lacks_is_refused(project: Path):
    before = len(Record.open(project).rows())
    done = subprocess.run(
        [HALE, "dna", "task", "cancel", "t999"], cwd=project, capture_output=True, text=True,
        timeout=120, env={**os.environ, "HALE_DNA_ANSWER_WAIT": "1"},
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == "", done
    assert (
        done.stderr.startswith("hale: no task t999 in the record") and done.stderr.count("\n") == 1
    )
    assert len(Record.open(project).rows()) == before


def test_a_reading_for_an_instance_nobody_runs_is_refused(project: Path):
    line = refused_in_one_line(run(project, "dna", "sense", "nobody", "unhealthy"))
    assert "no node runs an instance nobody" in line and "--other" in line
    assert Record.open(project).rows(kind="reading.taken") == []
    recorded = run(project, "dna", "sense", "nobody", "unhealthy", "--other")
    assert recorded.exit_code == 0, recorded.output
    assert [r.key for r in Record.open(project).rows(kind="reading.taken")] == ["nobody"]


def test_a_declaration_takes_the_id_at_rev_definitions_prints(project: Path):
    doc = json.loads(run(project, "dna", "definitions", "--json").stdout)
    d = next(d for d in doc["definitions"] if d["id"] == "ask-edit")
    newest = f"ask-edit@{d['newest']}"
    args = ["dna", "schedule", "declare", "often", "--every", "90000", "--convener", "editor",
            "--args", '{"objective": "tidy"}']  # fmt: skip
    asked = run(project, *args, "--definition", newest)
    assert asked.exit_code == 0, asked.output
    (row,) = Record.open(project).rows(kind="schedule.requested", key_prefix="sr-")[-1:]
    assert row.body["definition"] == "ask-edit"
    unknown = run(project, *args, "--definition", "no-such@1")
    assert "the catalog has no definition no-such" in refused_in_one_line(unknown)
    old = run(project, *args, "--definition", f"ask-edit@{d['newest'] + 1}")
    assert "newest revision" in refused_in_one_line(old)


def test_the_debugger_without_a_terminal_refuses_in_one_line(project: Path):
    done = subprocess.run(
        [HALE, "dna", "debug"], cwd=project, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "terminal" in done.stderr


@pytest.mark.parametrize("args", [["-h"], ["dna", "-h"], ["dna", "schedule", "declare", "-h"]])
def test_dash_h_is_help_everywhere(args: list[str]):
    result = CliRunner().invoke(hale, args)
    assert result.exit_code == 0 and result.output.startswith("Usage: ")


def test_completion_prints_each_shells_script():
    done = subprocess.run([HALE, "completion", "bash"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "_HALE_COMPLETE=bash_complete" in done.stdout
    for shell, said in (("zsh", "compdef"), ("fish", "complete --no-files --command hale")):
        result = CliRunner().invoke(hale, ["completion", shell])
        assert result.exit_code == 0 and said in result.output
    assert CliRunner().invoke(hale, ["completion", "tcsh"]).exit_code == 2


BROKEN = 'fn f() -> Int {\n    return "no";\n}\n'


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    (tmp_path / "a.hl").write_text(BROKEN)
    return tmp_path


def test_check_output_formats(broken: Path):
    doc = json.loads(run(broken, "check", "--output-format", "json", "a.hl").stdout)
    assert doc["errors"] == 1 and doc["files"] == 1
    (d,) = doc["diagnostics"]
    assert (d["path"], d["line"], d["severity"]) == ("a.hl", 2, "error")
    concise = run(broken, "check", "--output-format", "concise", "a.hl")
    assert concise.exit_code == 1
    assert concise.stdout.startswith(f"a.hl:2:{d['column']}: {d['code']} [error] ")
    github = run(broken, "check", "--output-format", "github", "a.hl").stdout
    assert github.startswith(f"::error file=a.hl,line=2,col={d['column']},")
    sarif = json.loads(run(broken, "check", "--output-format", "sarif", "a.hl").stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == d["code"] and sarif["version"] == "2.1.0"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 2


def test_check_defaults_to_the_project_and_finds_the_budgets_refusal(project: Path):
    clean = run(project, "check", "--output-format", "json")
    assert clean.exit_code == 0, clean.output
    assert json.loads(clean.stdout)["files"] > 1
    models = project / "dna" / "org" / "models.hl"
    text = models.read_text()
    assert 'window: "day"' in text
    models.write_text(text.replace('window: "day"', 'window: "month"'))
    refused = run(project, "check", "--output-format", "json")
    assert refused.exit_code == 1
    (d,) = json.loads(refused.stdout)["diagnostics"]
    assert d["code"] == "E0504" and d["path"] == "dna/org/models.hl"
    assert text.splitlines()[d["line"] - 1].find('"day"') == d["column"] - 1


UGLY = "fn   f() -> Int {\nreturn 1;\n}\n"
NEAT = "fn f() -> Int {\n    return 1;\n}\n"


def test_fmt_reads_standard_input_and_writes_standard_output(tmp_path: Path):
    result = CliRunner().invoke(hale, ["fmt", "-"], input=UGLY)
    assert result.exit_code == 0 and result.stdout == NEAT
    checked = CliRunner().invoke(hale, ["fmt", "--check", "-"], input=UGLY)
    assert checked.exit_code == 1 and checked.stdout == ""
    broken = CliRunner().invoke(hale, ["fmt", "-", "--stdin-filename", "x.hl"], input="fn (")
    assert broken.exit_code == 1 and "x.hl" in broken.stderr and broken.stdout == ""


def test_fmt_diff_writes_nothing_and_shows_the_change(tmp_path: Path):
    (tmp_path / "a.hl").write_text(UGLY)
    result = run(tmp_path, "fmt", "--diff", "a.hl")
    assert result.exit_code == 1
    assert (
        "-return 1;\n+fn f() -> Int {\n+    return 1;\n" in result.stdout
        and result.stdout.startswith("--- a.hl")
    )
    assert (tmp_path / "a.hl").read_text() == UGLY
    assert run(tmp_path, "fmt").exit_code == 0  # no path: the folder, as no project holds it
    assert (tmp_path / "a.hl").read_text() == NEAT
    assert run(tmp_path, "fmt", "--diff").stdout == ""


def test_a_missing_extra_is_named_in_one_line(project: Path, monkeypatch: pytest.MonkeyPatch):
    from hale_runtime import extras

    gone = {name: (("hale_no_such_module",), what) for name, (_, what) in extras.EXTRAS.items()}
    monkeypatch.setattr(extras, "EXTRAS", gone)
    lsp = CliRunner().invoke(hale, ["lsp"])
    assert lsp.exit_code == 1
    assert (
        lsp.stderr
        == "hale: the language server (`hale lsp`) needs the `lsp` extra: pip install 'hale[lsp]'\n"
    )
    monkeypatch.setattr("hale_runtime.cli.debug.terminal_missing", lambda: "")
    line = refused_in_one_line(run(project, "dna", "debug"))
    assert line.endswith("needs the `tui` extra: pip install 'hale[tui]'")
    monkeypatch.setenv("HALE_DNA_MEMORY", "postgresql://nobody@127.0.0.1:1/none")
    from hale_runtime.memory import open_memory

    with pytest.raises(extras.ExtraMissing, match=r"pip install 'hale\[postgres\]'"):
        open_memory("postgresql://nobody@127.0.0.1:1/none")


def test_a_declaration_the_scheduler_would_refuse_is_refused_at_the_verb(project: Path):
    args = ["dna", "schedule", "declare", "walk", "--cron", "0 3 * * *", "--convener", "leader"]
    result = run(project, *args, "--definition", "optimize-walk", "--args", '{"objective": "x"}')
    assert result.exit_code == 1
    assert result.output == "schedule declare: refused: optimize-walk takes no input objective\n"
    asked = Record.open(project).rows(kind="schedule.requested")
    assert all(r.body["id"] != "walk" for r in asked)


def test_check_says_the_catalogs_refusal_where_it_stands(project: Path):
    from schedule_helpers import OVERLAP_WORKFLOWS

    (project / "dna" / "org" / "own_workflows.hl").write_text(OVERLAP_WORKFLOWS)
    result = run(project, "check", "--output-format", "concise")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith("dna/org/own_workflows.hl:") and " E0505 [error] " in line
    assert "the catalog refuses hollow" in line
    full = run(project, "check")  # rendered at its line, as every diagnostic is
    assert "error[E0505]" in full.stderr and "own_workflows.hl" in full.stderr
