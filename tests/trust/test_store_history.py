"""History is history: a remote rewritten below what a clone has seen is
refused by sync (and the `sync` verb) in one line (the clone keeps its chain and can push it back),
and memory's projection, finding its cursor off the chain, rebuilds itself."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner
from hostile import line  # noqa: E402
from robust_helpers import commit_lines, forge_and_clone, git, record_tip

from hale_runtime.cli import hale
from hale_runtime.memory import SetHolder, open_memory
from hale_runtime.memory.projection import project
from hale_runtime.node.syncing import sync as node_sync
from hale_runtime.record import Record, store
from hale_runtime.record.chain import tracking_ref
from hale_runtime.record.errors import RecordError


def test_store_sync_refuses_a_remote_rewritten_below_what_it_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forge, a = forge_and_clone(tmp_path)
    record = Record.open(a)
    for n in range(3):
        record.append("note.made", f"n{n}", {"n": n})
        record.sync()
    seen = record_tip(a, tracking_ref("origin"))
    kept = [row.id for row in record.rows()]
    # the forge is force-pushed to another chain: the first commit, then a stranger's
    first = git(forge, "rev-list", "--max-parents=0", store.RECORD_REF)
    other = commit_lines(forge, pygit2.Oid(hex=first), [line("note.made", "x", {"n": 9})])
    git(forge, "update-ref", store.RECORD_REF, str(other))

    with pytest.raises(RecordError) as refused:
        Record.open(a).sync()
    said = str(refused.value)
    assert "\n" not in said and "rewritten below what this clone has seen" in said
    assert "git push --force origin" in said and "commit(s)" in said
    with pytest.raises(RecordError, match="rewritten below what this clone has seen"):
        node_sync(Record.open(a))  # the node's sync (its step 3, the organization's) refuses too
    monkeypatch.chdir(a)  # the verb says the same, in one line, and fails
    verb = CliRunner().invoke(hale, ["dna", "sync"])
    assert verb.exit_code == 1 and "Traceback" not in verb.output, verb.output
    assert verb.output.count("\n") == 1 and "rewritten below what this clone" in verb.output
    again = Record.open(a)
    assert [row.id for row in again.rows()] == kept  # the clone's chain is kept
    assert record_tip(a, tracking_ref("origin")) == seen  # and what it saw stamped

    # the line's own remedy restores the remote, and sync goes on from there
    command = said.split("`")[1].split()
    git(a, *command[1:])
    assert Record.open(a).sync().remote == "origin"
    assert record_tip(forge) == record_tip(a)


def test_store_projection_rebuilds_when_its_cursor_left_the_chain(tmp_path: Path) -> None:
    _, a = forge_and_clone(tmp_path)
    record = Record.open(a)
    record.append("position.filled", "position:board", {"holder": "bo"})
    record.append("note.made", "n", {"n": 1})
    record.sync()
    memory = open_memory(tmp_path / "m.sqlite3")
    memory.migrate()
    project(record, memory)
    # memory stands on a chain the record no longer holds: a cursor at a row
    # this clone has another one in place of, and a holder only that chain named
    cursor = memory.cursor("record")
    assert cursor is not None
    memory.apply([SetHolder("ghost", "gone")])
    assert memory.advance_cursor("record", cursor, "1:" + "0" * 64)
    said: list[str] = []
    project(record, memory, report_reset=said.append)
    assert said and "not in this record's chain" in said[0]
    assert memory.holder_of("ghost") is None
    assert memory.holder_of("board") == "bo"
    last = record.rows(stamped_only=True)[-1]
    assert memory.cursor("record") == f"{last.seq}:{last.id}"
    # and later rows reach it again
    record.append("position.vacated", "position:board", {})
    record.sync()
    project(record, memory)
    assert memory.holder_of("board") is None
