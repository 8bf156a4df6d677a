"""The engine over a real genome: `hale dna new`'s baseline catalog, loaded
from its `.hl` files, runs every definition the organization admits today and
refuses the rest with the catalog's reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from engine_helpers import HandClock, Org

from hale_runtime.catalog import load_catalog
from hale_runtime.cli import hale
from hale_runtime.performers import SUCCEEDED


@pytest.fixture
def genome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Org:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(hale, ["dna", "new", "p"])
    assert r.exit_code == 0, r.output
    return Org(tmp_path / "p", HandClock())


def test_the_baseline_runs_and_what_it_cannot_do_is_refused(genome):
    catalog = load_catalog(genome.root)
    e = genome.engine()
    asks = {
        "ask-edit": "editor",
        "ask-person": "person",
        "ask-judge": "agent",
        "ask-position": "agent",
        "practice-ratify": "organism",
        "concern-escalate": "organism",
        "optimize-walk": "organism",
    }
    for n, definition in enumerate(asks):
        d = catalog.newest(definition)
        inputs = {name: f"say {n}" for name in d.inputs}
        assert e.admit_from(catalog, definition, f"ask-{n}", "leader", inputs).task == f"t{n + 1}"
    e.pump()
    e.reply("t2/wf1/s0/p/a0", "person", SUCCEEDED)
    e.pump()
    performers = {
        r.key.split("/")[0]: r.body["performer"] for r in genome.rows(kind="attempt.admitted")
    }
    assert list(performers.values())[:4] == ["editor", "person", "agent", "agent"]
    assert all(e.settled(f"t{n + 1}") == SUCCEEDED for n in range(len(asks)))
    refused = e.admit_from(catalog, "ask-triage", "ask-x", "leader")
    assert (
        refused.refused
        == "workflow ask-triage@1 step 0 (offered): the organization performs no step offered"
    )
    assert "writes the heart" in e.admit_from(catalog, "change-deliver", "ask-y", "leader").refused


def test_the_budget_policy_is_the_genomes_org_budget(genome):
    from hale_runtime.engine.budget import MODELS, BudgetPolicy, policy_from_genome

    assert policy_from_genome(genome.root) == BudgetPolicy("day", 25_000_000)
    models = genome.root / MODELS
    models.write_text(
        models.read_text().replace(
            'window: "day", allowance_micros: 25000000', 'window: "week", allowance_micros: 7'
        )
    )
    assert policy_from_genome(genome.root) == BudgetPolicy("week", 7)
    models.write_text(models.read_text().replace('"week"', '"fortnight"'))
    with pytest.raises(ValueError, match="day, week or none"):
        policy_from_genome(genome.root)


def test_a_budget_window_the_host_cannot_keep_is_refused_where_it_is_written(genome, monkeypatch):
    """`window: "month"` checks as Hale; the host refuses to bind it, with the
    place, rather than taking it for an unmetered budget."""
    from hale_runtime.asks.genome import read_genome
    from hale_runtime.catalog.load import GenomeError
    from hale_runtime.engine.budget import MODELS, BudgetRefused, budget_refusal
    from hale_runtime.node.genome import BuildFailed, work_tree_genome
    from hale_runtime.node.genome import build as build_genome

    models = genome.root / MODELS
    models.write_text(models.read_text().replace('window: "day"', 'window: "month"'))
    line = next(i for i, t in enumerate(models.read_text().splitlines(), 1) if "month" in t)
    col = models.read_text().splitlines()[line - 1].index('"month"') + 1
    text = budget_refusal(genome.root)
    assert text is not None and "error[E0504]" in text
    assert f"--> {MODELS}:{line}:{col}" in text and "day, week or none" in text
    with pytest.raises(BuildFailed) as failed:
        build_genome(work_tree_genome(genome.root))
    assert failed.value.text == text
    with pytest.raises(GenomeError) as refused:
        load_catalog(genome.root)
    assert refused.value.text == text
    with pytest.raises(BudgetRefused):
        read_genome(genome.root)
    monkeypatch.chdir(genome.root)
    r = CliRunner().invoke(hale, ["dna", "definitions"], catch_exceptions=False)
    assert r.exit_code == 1 and f"{MODELS}:{line}:{col}" in r.output
