"""No genome loads (a fresh record: the one served fails its checks or its limits,
or has no catalog, and there is no last good genome to fall back to): an ask
is refused as a row naming why, in the organization's next round, and never
left waiting; the organization keeps running, and once a good genome lands
(the node restarts on it) asks are admitted as before (issue 29 item 9)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from no_genome_helpers import GREEDY, Running, ask

from hale_runtime.catalog.layout import layout
from hale_runtime.cli import hale
from hale_runtime.memory import open_memory
from hale_runtime.node.fallback import catalog_or_why
from hale_runtime.node.genome import genomes_dir
from hale_runtime.node.unadmitted import WHY_CHARS, reason
from hale_runtime.record import Record
from hale_runtime.record import kinds as k

BROKEN = "fn own_workflows(catalog: dna::WorkflowCatalog) -> String {\n    return \n"
OWN, ENTRY = "dna/org/own_workflows.hl", "dna/org/workflows.hl"


def fresh(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose record is fresh and whose branch has no commit yet (an
    orphan HEAD): nothing to fall back to."""
    monkeypatch.chdir(tmp)
    made = CliRunner().invoke(hale, ["dna", "new", "p"])
    assert made.exit_code == 0, made.output
    root = tmp / "p"
    subprocess.run(["git", "checkout", "-q", "--orphan", "fresh"], cwd=root, check=True)
    memory = root / ".git" / "hale" / "memory.sqlite3"
    monkeypatch.setenv("HALE_DNA_MEMORY", str(memory))
    open_memory(memory).migrate()
    return root


def break_genome(root: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Break the genome `how`; a fragment of the diagnostic the refusal quotes."""
    if how == "checks":
        (root / OWN).write_text(BROKEN)
        return "error"
    if how == "limits":
        (root / OWN).write_text(GREEDY)
        monkeypatch.setenv("HALE_MAX_MEMORY", "8M")
        return "memory"
    (root / ENTRY).unlink()
    return "workflows.hl is missing"


def refusals(root: Path, intent: str) -> list:
    return Record.open(root).rows(kind=k.INTENT_REFUSED, key=intent)


@pytest.mark.parametrize("how", ["checks", "limits", "catalog missing"])
def test_store_no_genome_refuses_the_ask_then_a_good_genome_admits(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fresh(tmp_path, monkeypatch)
    fragment = break_genome(root, how, monkeypatch)
    run = Running(root)
    assert run.org.catalog is None and run.org.engine is None
    first = ask(root, "i-000000000001", {"objective": "judge the readme", "judgment": True})
    run.rounds(1)  # the next round answers it
    refused = refusals(root, first)
    assert len(refused) == 1, "the ask was left waiting"
    why = refused[0].body["reason"]
    assert why.startswith("refused: no genome loads: ") and fragment in why, why
    run.rounds(3)  # the relay brings nothing back: answered once
    assert len(refusals(root, first)) == 1
    assert not Record.open(root).rows(kind=k.INTENT_OFFERED)
    assert not Record.open(root).rows(kind=k.ROW_QUARANTINED)
    run.org.memory.close()

    monkeypatch.delenv("HALE_MAX_MEMORY", raising=False)
    for rel, data in layout().items():  # a good genome lands; the node restarts on it
        if rel.startswith("dna/org/"):
            (root / rel).write_bytes(data)
    run = Running(root)
    assert run.org.catalog is not None
    second = ask(root, "i-000000000002", {"objective": "judge the readme", "judgment": True})
    offered = run.until(lambda: Record.open(root).rows(kind=k.INTENT_OFFERED, key=second))
    assert offered and not refusals(root, second)
    assert len(refusals(root, first)) == 1  # the old refusal stands: answered once
    run.org.memory.close()


@pytest.fixture(scope="module")
def no_genome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with pytest.MonkeyPatch.context() as patch:
        root = fresh(tmp_path_factory.mktemp("nogenome"), patch)
        (root / ENTRY).unlink()
        run = Running(root)
        yield run
        run.org.memory.close()


ask_bodies = st.fixed_dictionaries(
    {},
    optional={
        "objective": st.one_of(st.text(max_size=30), st.integers(), st.none(), st.lists(st.text())),
        "judgment": st.one_of(st.booleans(), st.text(max_size=3), st.integers()),
        "to": st.one_of(st.text(max_size=20), st.integers(), st.dictionaries(st.text(), st.text())),
        "target": st.one_of(st.text(max_size=20), st.none()),
        "owner": st.one_of(st.text(max_size=10), st.integers()),
        "by": st.one_of(st.text(max_size=10), st.lists(st.integers())),
    },
)


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(bodies=st.lists(ask_bodies, min_size=1, max_size=3))
def test_store_no_genome_refuses_every_ask_once_whatever_it_says(
    no_genome: Running, bodies: list[dict]
) -> None:
    """Hostile asks (any body a stranger may write) at an organization with no
    genome: it never raises, and every ask that fits its kind is refused once,
    in the next round."""
    root = no_genome.root
    written = [no_genome.stranger_asks(body) for body in bodies]
    no_genome.rounds(1)
    record = Record.open(root)
    for intent in written:
        if intent is None:
            continue  # the door left it out: nothing relays it
        refused = record.rows(kind=k.INTENT_REFUSED, key=intent)
        assert len(refused) == 1, intent
        assert refused[0].body["reason"].startswith("refused: no genome loads: ")
    no_genome.rounds(1)
    assert all(len(record.rows(kind=k.INTENT_REFUSED, key=i)) <= 1 for i in written if i)


def test_store_no_genome_refuses_only_its_own_asks_over_a_shared_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over a shared record an organization with no genome refuses the asks it
    owns, by the intake's rule, and leaves another organization's to it."""
    root = fresh(tmp_path, monkeypatch)
    (root / ENTRY).unlink()
    monkeypatch.setenv("HALE_DNA_OWNER", "acme")
    run = Running(root)
    ours = ask(root, "i-000000000001", {"objective": "tidy", "owner": "acme"})
    theirs = ask(root, "i-000000000002", {"objective": "tidy", "owner": "globex"})
    run.rounds(2)
    assert len(refusals(root, ours)) == 1
    assert refusals(root, theirs) == []
    run.org.memory.close()


@given(st.text(max_size=800))
def test_store_the_refusal_quotes_any_diagnostic_as_one_bounded_line(diagnostic: str) -> None:
    """Whatever the genome's diagnostic says (it is the genome's text), the reason
    is one printable line of bounded length that fits `intent.refused`."""
    why = reason(diagnostic)
    assert why.startswith("refused: no genome loads: ")
    assert why.isprintable() and len(why) <= len("refused: no genome loads: ") + WHY_CHARS
    assert not k.check(k.INTENT_REFUSED, "i-000000000001", {"reason": why})


def test_store_no_genome_folder_at_all_says_so(tmp_path: Path) -> None:
    """A first start whose forge gave nothing: the host serves no folder, and the
    refusal says no genome was fetched or built, not a file of it missing."""
    root = tmp_path / "p"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    catalog, why = catalog_or_why(root, genomes_dir(root) / "none", lambda line: None)
    assert catalog is None and reason(why) == (
        "refused: no genome loads: no genome was fetched or built here"
    )
