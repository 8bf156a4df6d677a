"""Records written by an earlier hale, pinned as `tests/**/records/*.jsonl`
(one stored line a row, exactly as git held them): each must still decode,
fold and show as its snapshot says. A change that alters what an old
record means shows up here as a snapshot to review."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.engine import Budget, BudgetPolicy, State
from hale_runtime.record import RECORD_REF, Record
from hale_runtime.record.store import move_ref, write_commit
from hale_runtime.schedules.state import Fold

TESTS = Path(__file__).resolve().parent.parent
PINNED = sorted(TESTS.glob("*/records/*.jsonl"))


def load(lines: Path, where: Path) -> Record:
    """A fresh repository whose record is the pinned lines, one commit."""
    repo = pygit2.init_repository(str(where))
    (where / "dna" / "org").mkdir(parents=True)
    (where / "dna" / "org" / "main.hl").write_text("// a pinned record's project\n")
    tip = write_commit(repo, None, lines.read_text(), "pinned", 0)
    assert move_ref(repo, RECORD_REF, None, tip)
    return Record.open(where)


def folded(record: Record) -> dict:
    rows = record.rows()
    kept = State(Budget(BudgetPolicy("day", 0)))
    forgetful = State(Budget(BudgetPolicy("day", 0)), forget_settled=True)
    for r in rows:
        kept.apply(r.kind, r.key, r.body, r.at)
        forgetful.apply(r.kind, r.key, r.body, r.at)
    schedules = Fold().apply_all(rows)
    return {
        "rows": len(rows),
        "top_root": kept.top_root,
        "open": list(forgetful.open),
        "settled roots forgotten": len(forgetful.roots_settled),
        "budget": kept.budget.snapshot(),
        "schedules": {
            key: (s.floor, s.paused, s.occurred, s.skipped, s.missed, s.last_task, s.last_open)
            for key, s in schedules.schedules.items()
        },
    }


@pytest.mark.parametrize("lines", PINNED, ids=[f"{p.parent.parent.name}/{p.name}" for p in PINNED])
def test_a_pinned_record_still_folds_and_shows_as_it_did(lines, tmp_path, monkeypatch, snapshot):
    record = load(lines, tmp_path / "p")
    roots = [r.key for r in record.rows(kind="workflow.admitted") if "plan" in r.body]
    monkeypatch.chdir(tmp_path / "p")
    shown = {}
    for task in roots:
        result = CliRunner().invoke(hale, ["dna", "show", task])
        assert result.exit_code == 0, result.output
        shown[task] = result.output
    assert {"fold": folded(record), "show": shown} == snapshot


def test_records_are_pinned() -> None:
    assert {p.parent.parent.name for p in PINNED} >= {"engine", "schedules"}
