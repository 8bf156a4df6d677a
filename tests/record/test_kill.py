"""A writer killed with SIGKILL between writing its objects and moving the ref."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from record_helpers import run_python

from hale_runtime.record import Record
from hale_runtime.record.store import PAUSE_ENV

WRITER = """
import sys
from hale_runtime.record import Record
Record.open(sys.argv[1]).append_many([("doomed.row", f"k{i}", {"i": i}) for i in range(10)])
"""


def wait_for(path: Path, writer: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert writer.poll() is None, writer.stderr.read()
        assert time.monotonic() < deadline, "the writer never reached the ref"
        time.sleep(0.01)


def test_a_writer_killed_before_the_ref_moves_leaves_no_part_of_its_batch(
    record: Record, project: Path, tmp_path: Path
) -> None:
    record.append("kept.row", "before", {})
    marker = tmp_path / "objects-written"
    writer = run_python(WRITER, str(project), env={**os.environ, PAUSE_ENV: str(marker)})
    wait_for(marker, writer)
    commit = marker.read_text()
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=10) == -signal.SIGKILL
    assert subprocess.run(["git", "-C", str(project), "cat-file", "-e", commit]).returncode == 0
    after = Record.open(project)
    assert [r.key for r in after.rows()] == ["before"]  # the batch is wholly absent
    after.append("kept.row", "after", {})  # and the record goes on
    assert [r.key for r in Record.open(project).rows()] == ["before", "after"]
    fsck = subprocess.run(["git", "-C", str(project), "fsck", "--no-dangling"], capture_output=True)
    assert fsck.returncode == 0, fsck.stderr


def test_a_writer_that_moved_the_ref_has_its_whole_batch(project: Path) -> None:
    writer = run_python(WRITER, str(project))
    assert writer.wait(timeout=60) == 0, writer.stderr.read()
    assert [r.key for r in Record.open(project).rows()] == [f"k{i}" for i in range(10)]
