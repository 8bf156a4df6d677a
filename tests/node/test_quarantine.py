"""The quarantine across a sync's rebase, on real clones of one bare remote.

A clone's organization has read its own unstamped rows when another clone
pushes: the sync puts the other clone's rows below them. A poison row that
came that way is still found and answered once, and a `row.quarantined`
another organization wrote that came that way still counts as the answer.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pygit2
import pytest
from hostile import append_lines, line, row_id

from hale_runtime.node.quarantine import Quarantine
from hale_runtime.record import Record
from hale_runtime.record.kinds import ROW_QUARANTINED

POISON = line("workflow.admitted", "t1", {"definition": 7})  # its body does not fit its kind


@pytest.fixture
def clones(tmp_path: Path):
    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    ticks = itertools.count(1_767_225_600_000, 1000)

    def make(name: str) -> Record:
        path = tmp_path / name
        repo = pygit2.init_repository(str(path))
        repo.config["hale.clone"] = f"{name:0<8}"[:8]
        repo.remotes.create("origin", str(remote))
        return Record.open(path, clock=lambda: next(ticks), who=f"{name}@box:c0ffee00")

    return make


def answers(record: Record) -> list[str]:
    return [r.key for r in record.rows(kind=ROW_QUARANTINED)]


def test_a_poison_row_slipped_below_rows_already_read_is_answered(clones) -> None:
    ours, theirs = clones("ours"), clones("theirs")
    ours.append("note.made", "first", {"n": 0})
    ours.sync()
    theirs.sync()
    for n in range(3):  # ours reads past rows the remote does not hold yet
        ours.append("note.made", f"ours/{n}", {"n": n})
    quarantine = Quarantine(ours, None, "ours@box:c0ffee00", say=lambda _line: None)
    assert quarantine.write() == 0
    append_lines(theirs.repo.workdir, [POISON])
    theirs.sync()
    ours.sync()  # the poison row now stands below the three rows read
    bad = row_id(POISON)
    assert ours.get(bad) is not None and ours.poison_of(ours.get(bad))
    assert quarantine.write() == 1
    assert quarantine.write() == 0
    assert answers(ours) == [bad]


def test_an_answer_another_clone_wrote_below_rows_already_read_counts(clones) -> None:
    ours, theirs = clones("ours"), clones("theirs")
    append_lines(ours.repo.workdir, [POISON])
    ours.sync()
    theirs.sync()
    ours.append("note.made", "ours/0", {"n": 0})
    quarantine = Quarantine(ours, None, "ours@box:c0ffee00", say=lambda _line: None)
    quarantine.read()  # ours has found the poison row, and read past its own row
    assert Quarantine(theirs, None, "theirs@box:c0ffee00", say=lambda _line: None).write() == 1
    theirs.sync()
    ours.sync()  # their answer now stands below our row
    assert quarantine.write() == 0  # nothing written twice
    assert answers(ours) == [row_id(POISON)]
