"""`hale dna definitions` on a new project, with close-month, and its failures."""

from __future__ import annotations

import json

from catalog_helpers import CLOSE_MONTH, own_part


def test_new_project_lists_the_baseline(project, snapshot):
    r = project.run("dna", "definitions")
    assert r.code == 0, r.err
    assert r.out.startswith(
        "catalog dna/org/workflows.hl\n"
        "ask-edit@1  an ask: one change, prepared for review\n"
        "  0. e  record\n"
        "  occurs: skip while open, takes objective\n"
    )
    assert (
        "change-deliver@1  a change delivered: reviewed at the forge, applied, deployed, "
        "settled on the pulse\n"
        "  0. candidate  record\n"
        "  1. review  forge\n"
        "  2. verdict  record\n"
        "  3. apply  genome\n"
        "  4. deploy  heart\n"
        "  5. settle  record\n"
        "  refused at admission: workflow change-deliver@1 step 4 (deploy) writes the heart "
        "(GH #987), which is not built yet\n"
    ) in r.out
    assert r.out == snapshot


def test_new_project_json_is_the_catalogs_document(project, snapshot):
    r = project.run("dna", "definitions", "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert [d["id"] for d in doc["definitions"]] == sorted(d["id"] for d in doc["definitions"])
    assert r.out == snapshot


def test_close_month_joins_the_catalog(project, snapshot):
    project.own(CLOSE_MONTH)
    r = project.run("dna", "definitions")
    assert r.code == 0, r.err
    assert own_part(r.out) == snapshot
    assert own_part(r.out).endswith(
        "close-month@1  close the month\n"
        "  0. reconcile  record\n"
        "  1. post  record\n"
        "  occurs: skip while open, takes period\n"
    )


def test_close_month_document(project, snapshot):
    project.own(CLOSE_MONTH)
    r = project.run("dna", "definitions", "--json")
    doc = json.loads(r.out)
    (close,) = [d for d in doc["definitions"] if d["id"] == "close-month"]
    assert close == snapshot


def test_runs_from_any_folder_inside(project):
    (project.root / "dna" / "deep").mkdir()
    r = project.run("dna", "definitions", cwd=project.root / "dna" / "deep")
    assert r.code == 0 and r.out.startswith("catalog dna/org/workflows.hl\n")


def test_outside_a_project_is_one_line_naming_new(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    r = project.run("dna", "definitions", cwd=outside)
    assert r.code == 1
    assert len(r.err.splitlines()) == 1 and "`hale dna new`" in r.err


def test_a_syntax_error_anywhere_is_a_diagnostic(project, snapshot):
    project.write("dna/org/models.hl", "fn org_budget( -> dna::BudgetPolicy {\n}\n")
    r = project.run("dna", "definitions")
    assert r.code == 1 and r.out == ""
    assert r.err == snapshot


def test_a_type_error_anywhere_is_a_diagnostic(project, snapshot):
    project.own('let d = catalog.define("x", "1", "record", "x");\nreturn d;')
    r = project.run("dna", "definitions")
    assert r.code == 1 and r.out == ""
    assert "dna/org/own_workflows.hl:4:" in r.err
    assert r.err == snapshot


def test_a_warm_run_prints_the_same(project):
    first = project.run("dna", "definitions", "--json")
    second = project.run("dna", "definitions", "--json")
    assert first.out == second.out


def test_a_runtime_fault_in_the_genome_is_a_diagnostic(project, snapshot):
    project.own("let xs = [1];\nreturn to_string(xs[3]);")
    r = project.run("dna", "definitions")
    assert r.code == 1 and r.out == ""
    assert r.err == snapshot


def test_returning_something_the_catalog_did_not_refuse_fails(project):
    project.own('return "not done yet";')
    r = project.run("dna", "definitions")
    assert r.code == 1
    assert r.out.splitlines()[0] == (
        "dna/org/workflows.hl: workflows returned 'not done yet', not a refusal"
    )


def test_a_warm_run_imports_neither_the_language_nor_lark(project):
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from hale_runtime.cli import hale\n"
        "try:\n"
        "    hale(['dna', 'definitions'], standalone_mode=False)\n"
        "finally:\n"
        "    print(sorted(m for m in ('lark', 'hale_lang', 'pygit2') if m in sys.modules))\n"
    )
    project.run("dna", "definitions")  # fills the cache
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=project.root, capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"
