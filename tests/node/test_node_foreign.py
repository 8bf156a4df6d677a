"""Foreign commits through a running organism: `hale dna dev` over a real bare remote.

Anyone who can push to the record can push a commit hale never writes: a
merge, a tree of other entries, rows that are no UTF-8 text, a blob past
what a commit holds. A clone with no hale in it pushes one of each onto the
remote's record while a node runs. The node syncs through every one, its
organization quarantines each foreign commit once (one `row.quarantined`
naming its placeholder row) and goes on admitting work, the verbs that read
the record print it without a traceback, and a restart writes nothing twice.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

from hostile import SHAPES, push_foreign
from node_helpers import clone, hale, make_dna_forge, sh, wait_for

from hale_runtime.record import RECORD_REF, Record
from hale_runtime.record import kinds as k

ENV = {"HALE_DNA_LEASE_S": "5", "HALE_DNA_ANSWER_WAIT": "60"}
PUSHED = sorted(set(SHAPES) - {"parent not a commit"})  # that one takes a force push


def push_hostile(hostile: Path, shape: str) -> None:
    """Fetch the remote's record, put a commit of `shape` on it, push; again when raced."""
    for _ in range(20):
        sh(hostile, "git", "fetch", "-q", "origin", f"+{RECORD_REF}:{RECORD_REF}")
        push_foreign(hostile, shape)
        done = subprocess.run(["git", "push", "-q", "origin", RECORD_REF], cwd=hostile,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        if done.returncode == 0:
            return
    raise AssertionError(f"the remote kept moving: {done.stderr}")


def admits(root: Path, n: int) -> str:
    """The organism still admits work: an ask is born a task; the task."""
    said = hale(root, "dna", "task", "create", f"still admitting {n}", env=ENV, timeout=90)
    assert said.returncode == 0 and " born: " in said.stdout, said
    return said.stdout.split(" born: ")[0].split()[-1]


def placeholders(root: Path) -> list:
    record = Record.open(root)
    return [r for r in record.rows(poison=True) if r.kind == k.ROW_UNREADABLE]


def quarantined(root: Path) -> Counter:
    return Counter(r.key for r in Record.open(root).rows(kind=k.ROW_QUARANTINED))


def test_a_node_syncs_and_goes_on_through_foreign_commits(tmp_path: Path, nodes) -> None:
    forge, _ = make_dna_forge(tmp_path)
    root, hostile = clone(forge, tmp_path / "c1"), clone(forge, tmp_path / "mallory")
    node = nodes(root, "dev", ENV)
    node.wait_running()
    first = admits(root, 0)
    for shape in PUSHED:
        push_hostile(hostile, shape)
    foreign = sum(1 for shape in PUSHED if SHAPES[shape][1]) + 1  # and the not-UTF-8 line
    wait_for(lambda: len(placeholders(root)) == foreign, 60, "every foreign commit synced")
    bad = {r.id for r in placeholders(root)}
    wait_for(lambda: bad <= set(quarantined(root)), 180, "every foreign commit quarantined")
    task = admits(root, 1)
    assert node.proc.poll() is None, node.log()

    for verb in (["history"], ["history", "--kind", "row.unreadable"], ["status"],
                 ["show", first], ["show", task], ["history", task]):  # fmt: skip
        said = hale(root, "dna", *verb, env=ENV)
        assert said.returncode == 0 and "Traceback" not in said.stdout + said.stderr, (verb, said)
    listed = hale(root, "dna", "history", "--kind", "row.unreadable", env=ENV).stdout
    assert listed.count("row.unreadable") == foreign
    assert f"quarantined: {len(quarantined(root))} row" in hale(root, "dna", "status").stdout

    assert node.stop() == 0, node.log()
    again = nodes(root, "dev", ENV)
    again.wait_running()
    admits(root, 2)
    counts = quarantined(root)
    assert all(counts[row_id] == 1 for row_id in bad)  # a restart writes nothing twice
    assert "Traceback" not in node.log() + again.log()
    fresh = Record.open(clone(forge, tmp_path / "fresh"))
    fresh.sync()
    assert {r.id for r in fresh.rows(poison=True) if r.kind == k.ROW_UNREADABLE} == bad


def test_the_debugger_opens_over_foreign_commits(tmp_path: Path, monkeypatch) -> None:
    import asyncio

    from click.testing import CliRunner

    from hale_runtime.cli import hale as hale_cli
    from hale_runtime.tui.app import DebugApp

    forge, src = make_dna_forge(tmp_path)
    for shape in sorted(SHAPES):
        push_foreign(src, shape)
    screens: list[str] = []

    async def first_screen(app: DebugApp) -> None:
        async with app.run_test(size=(80, 24)):
            screens.append(str(app.screen))

    monkeypatch.setattr(DebugApp, "run", lambda app: asyncio.run(first_screen(app)))
    monkeypatch.setattr("hale_runtime.cli.debug.terminal_missing", lambda: "")  # drawn headless
    monkeypatch.chdir(src)
    result = CliRunner().invoke(hale_cli, ["dna", "debug"])
    assert result.exit_code == 0 and result.exception is None, result.output
    assert len(screens) == 1
