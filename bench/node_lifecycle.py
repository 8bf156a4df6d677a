"""How fast a node starts and stops, as an operator restarting one sees it.

Writes a tiny project (tests/node's tiny genome, no remote) once, then N
times: starts `hale dna dev` there and times it to the host's "running;"
line (the line it prints once the fence and the organization answer and its
first tick is due), then sends SIGTERM and times it to the process's exit
(the lease released and `node.stopped` written). Prints the median, the
minimum and the maximum of each, beside the goals of issue 33: start ≤ 0.5 s,
stop ≤ 0.3 s.

    .venv/bin/python bench/node_lifecycle.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from node_idle import project  # the same tiny project (bench/ is this script's folder)

HALE = str(Path(sys.executable).parent / "hale")
GOALS = {"start": 0.5, "stop": 0.3}


def once(src: Path, log_path: Path, env: dict[str, str]) -> tuple[float, float]:
    """(seconds to "running;", seconds from SIGTERM to exit) of one node."""
    with open(log_path, "w") as log:
        t0 = time.monotonic()
        node = subprocess.Popen([HALE, "dna", "dev"], cwd=src, stdout=log, stderr=log, env=env)
        try:
            while "running;" not in log_path.read_text():
                if node.poll() is not None or time.monotonic() - t0 > 60:
                    raise SystemExit(f"the node did not start:\n{log_path.read_text()}")
                time.sleep(0.005)
            started = time.monotonic() - t0
            t1 = time.monotonic()
            node.send_signal(signal.SIGTERM)
            code = node.wait(60)
            stopped = time.monotonic() - t1
        finally:
            if node.poll() is None:
                node.kill()
    if code != 0:
        raise SystemExit(f"the node exited {code}:\n{log_path.read_text()}")
    return started, stopped


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        src = project(Path(tmp), remote=False, new=False)
        env = {**os.environ, "HALE_CACHE_DIR": str(Path(tmp) / "cache")}
        once(src, Path(tmp) / "warm.log", env)  # build caches, as a restart finds them
        figures = [once(src, Path(tmp) / f"{i}.log", env) for i in range(runs)]
    for name, values in zip(("start", "stop"), zip(*figures, strict=True), strict=True):
        median = statistics.median(values)
        verdict = "within" if median <= GOALS[name] else "OVER"
        print(
            f"node {name}: median {median:.3f} s (min {min(values):.3f}, max {max(values):.3f}) "
            f"over {runs} runs, {verdict} the goal of {GOALS[name]} s"
        )


if __name__ == "__main__":
    main()
