"""`hale check` and `hale run` through click's CliRunner, outputs pinned
with syrupy; the seeds' fragments (own_workflows with close-month, and
org_budget) run against a stand-in WorkflowCatalog binding; the build cache
is hit when nothing changed and missed when anything did."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_lang.build import build, cache_dir, compile_entries
from hale_lang.roots import genome_root
from hale_lang.stdlib.prelude import to_plain
from hale_runtime.cli import hale

GENOME = Path(__file__).parent / "fixtures" / "genome"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "genome"


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))


def hale_cli(*args: str, cwd: Path = GENOME):
    r = CliRunner().invoke(hale, list(args), catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception  # a traceback would have reached the user
    return r.exit_code, r.stdout, r.stderr


class StandInCatalog:
    """What the host binds as vendor/dna/mod.hl::WorkflowCatalog: records calls."""

    def __init__(self, refuse: str = ""):
        self.calls: list[tuple] = []
        self.refuse = refuse

    def define(self, id: str, rev: int, stores: str, summary: str) -> str:
        self.calls.append(("define", id, rev, stores, summary))
        return self.refuse

    def leaf(self, id, rev, step, key, work, attempts) -> str:
        self.calls.append(("leaf", id, rev, step, key, to_plain(work), attempts))
        return ""

    def occurs(self, id, rev, mode, input) -> str:
        self.calls.append(("occurs", id, rev, mode, input))
        return ""


BINDINGS = {"vendor/dna/mod.hl::WorkflowCatalog": StandInCatalog}


def test_seed_own_workflows_defines_close_month() -> None:
    program = build(GENOME, ["dna/org/own_workflows.hl"], bindings=BINDINGS)
    catalog = StandInCatalog()
    assert program.call("dna/org/own_workflows.hl", "own_workflows", catalog) == ""
    assert catalog.calls == [
        ("define", "close-month", 1, "record record", "close the month"),
        (
            "leaf",
            "close-month",
            1,
            0,
            "reconcile",
            {"objective": "reconcile the bank feed", "requires": "analysis"},
            2,
        ),
        (
            "leaf",
            "close-month",
            1,
            1,
            "post",
            {"objective": "post the journal entries", "requires": "human"},
            1,
        ),
        ("occurs", "close-month", 1, "skip", "period"),
    ]


def test_seed_own_workflows_returns_the_first_refusal() -> None:
    program = build(GENOME, ["dna/org/own_workflows.hl"], bindings=BINDINGS)
    catalog = StandInCatalog(refuse="unknown store")
    assert program.call("dna/org/own_workflows.hl", "own_workflows", catalog) == "unknown store"
    assert len(catalog.calls) == 1


def test_seed_org_budget() -> None:
    program = build(GENOME, ["dna/org/models.hl"], bindings=BINDINGS)
    policy = program.call("dna/org/models.hl", "org_budget")
    assert type(policy).__name__.endswith("BudgetPolicy")
    assert (policy.f_window, policy.f_allowance_micros) == ("day", 25000000)
    assert to_plain(policy) == {"window": "day", "allowance_micros": 25000000}


def test_check_genome(snapshot) -> None:
    assert hale_cli("check", str(GENOME / "dna")) == snapshot


def test_check_with_errors(snapshot) -> None:
    code, out, err = hale_cli("check", str(GENOME / "bad"), "--root", str(GENOME))
    assert code == 1
    assert (code, out, err) == snapshot


def test_run_prints_json(snapshot) -> None:
    path = str(GENOME / "dna/org/models.hl")
    assert hale_cli("run", path, "--fn", "org_budget") == snapshot


def test_run_with_args(snapshot) -> None:
    path = str(GENOME / "dna/org/warn.hl")
    assert hale_cli("run", path, "--fn", "shout", "--arg", "21", "--arg", '["a","b"]') == snapshot


@pytest.mark.parametrize(
    "args",
    [
        ["--arg", '"21"', "--arg", "[]"],  # a String where an Int goes
        ["--arg", "21"],  # too few
        ["--arg", "21", "--arg", "[1]"],  # Int inside a List<String>
        ["--arg", "not json", "--arg", "[]"],
    ],
    ids=["type", "arity", "nested", "syntax"],
)
def test_run_refuses_bad_args(args: list[str], snapshot) -> None:
    code, out, err = hale_cli("run", str(GENOME / "dna/org/warn.hl"), "--fn", "shout", *args)
    assert code == 2
    assert (code, out, err) == snapshot


def test_run_unknown_fn(snapshot) -> None:
    assert hale_cli("run", str(GENOME / "dna/org/models.hl"), "--fn", "nope") == snapshot


def test_run_needs_a_binding(snapshot) -> None:
    path = str(GENOME / "dna/org/own_workflows.hl")
    assert hale_cli("run", path, "--fn", "own_workflows") == snapshot


def test_run_runtime_error(snapshot, tmp_path: Path) -> None:
    shutil.copytree(GENOME, tmp_path / "g")
    (tmp_path / "g/dna/org/fail.hl").write_text(
        'fn main() -> Int {\n    let m = {"a": 1};\n    return m["b"];\n}\n'
    )
    assert hale_cli("run", str(tmp_path / "g/dna/org/fail.hl")) == snapshot


def test_example_genome_main_job(snapshot) -> None:
    assert hale_cli("check", str(EXAMPLE)) == snapshot
    demo = EXAMPLE / "dna/org/own_workflows_demo.hl"
    assert hale_cli("run", str(demo), "--fn", "main") == snapshot


def test_genome_root() -> None:
    assert genome_root(GENOME / "dna/org/models.hl") == GENOME.resolve()
    assert genome_root(GENOME / "vendor/dna/mod.hl") == GENOME.resolve()
    assert genome_root(GENOME / "dna") == GENOME.resolve()


def test_build_cache_hit_and_invalidation(tmp_path: Path) -> None:
    root = tmp_path / "g"
    shutil.copytree(GENOME, root)
    cold = compile_entries(root, ["dna/org/models.hl"])
    assert not cold.from_cache and list(cache_dir().glob("*.build"))
    warm = compile_entries(root, ["dna/org/models.hl"])
    assert warm.from_cache and warm.diagnostics == cold.diagnostics
    # an edit to an imported module invalidates the entry
    mod = root / "vendor/dna/mod.hl"
    mod.write_text(mod.read_text() + "\nconst EXTRA: Int = 1;\n")
    assert not compile_entries(root, ["dna/org/models.hl"]).from_cache
    # an import that now resolves elsewhere invalidates it too
    (root / "vendor/dna.hl").write_text("struct BudgetPolicy { window: String }\n")
    again = compile_entries(root, ["dna/org/models.hl"])
    assert not again.from_cache and again.errors
    # a deleted or torn cache only costs a rebuild
    shutil.rmtree(cache_dir())
    (root / "vendor/dna.hl").unlink()
    assert not compile_entries(root, ["dna/org/models.hl"]).from_cache
    for f in cache_dir().glob("*.build"):
        f.write_bytes(b"torn")
    program = build(root, ["dna/org/models.hl"])
    assert to_plain(program.call("dna/org/models.hl", "org_budget"))["window"] == "day"


def test_warm_build_runs_the_same(tmp_path: Path) -> None:
    first = build(GENOME, ["dna/org/own_workflows.hl"], bindings=BINDINGS)
    second = build(GENOME, ["dna/org/own_workflows.hl"], bindings=BINDINGS)
    c1, c2 = StandInCatalog(), StandInCatalog()
    first.call("dna/org/own_workflows.hl", "own_workflows", c1)
    second.call("dna/org/own_workflows.hl", "own_workflows", c2)
    assert c1.calls == c2.calls


def test_check_finds_each_files_genome_root() -> None:
    """`hale check examples` checks examples/genome from its own root, though
    the folder above (the repository) also holds a `vendor/`."""
    whole = hale_cli("check", str(EXAMPLE.parent))
    assert whole[0] == 0, whole[2]
    assert whole == hale_cli("check", str(EXAMPLE))
