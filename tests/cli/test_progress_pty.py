"""The progress bar through the installed command, as a user runs it: with
stderr on a real terminal (a pty) `simulate` draws its bar, and a verb that
reads the record from git at length (its index gone, so rebuilt) draws
one with the count of commits known; with stderr on a pipe, as under
--json or in a script, stderr carries none of it."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from schedule_helpers import DAY, START

from hale_runtime.record import Record
from hale_runtime.record.chain import SHOW_FROM
from hale_runtime.schedules.terms import stamp

HALE = Path(sys.executable).with_name("hale")
ERASE = "\r\x1b[2K"
# cli/progress.py's line with a known total
BAR = re.escape(ERASE) + r"{label} [█░]{{30}} +\d+% \d+ s"


def run(root: Path, args: list[str], terminal: bool) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `hale dna ARGS`, stderr on a pty or a pipe."""
    env = {**os.environ, "HALE_PROGRESS_AFTER": "0", "COLUMNS": "100"}
    cmd = [str(HALE), "dna", *args]
    if not terminal:
        done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    out_file = tempfile.TemporaryFile()  # not a pipe: a long output would fill it meanwhile
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out_file, stderr=slave)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end (EIO on Linux)
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    rc = proc.wait(timeout=60)
    out_file.seek(0)
    return rc, out_file.read().decode(), seen.decode(errors="replace")


def test_simulate_draws_its_bar_on_a_terminal_and_nothing_into_a_pipe(project: Path) -> None:
    window = ["--from", stamp(START + DAY), "--to", stamp(START + 400 * DAY)]
    rc, out, err = run(project, ["simulate", *window], terminal=True)
    assert rc == 0, err
    assert re.search(BAR.format(label="simulate"), err), err  # a bar: the total is known
    assert err.endswith(ERASE)  # cleared: the verb's output stands alone
    assert ERASE not in out and "█" not in out
    rc, out_json, err = run(project, ["simulate", *window, "--json"], terminal=False)
    assert rc == 0 and err == ""
    assert out_json.lstrip().startswith("{")


def test_a_record_read_again_from_git_shows_how_far_it_is(project: Path) -> None:
    record = Record.open(project)
    for i in range(SHOW_FROM):  # one commit each: enough to be told as long work
        record.append("sense.reading", f"probe/{i}", {"instance": "x", "health": "ok"})
    record.close()
    for index in (Path(record.repo.path) / "hale").glob("record.index*"):
        index.unlink()  # derived and disposable: the next reader rebuilds it from git
    rc, out, err = run(project, ["history", "--json"], terminal=True)
    assert rc == 0, err
    assert re.search(BAR.format(label="reading the record"), err), err  # of the commits to read
    assert err.endswith(ERASE)
    assert ERASE not in out
