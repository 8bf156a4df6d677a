"""How fast a node starts and stops, as an operator restarting one sees it.

Writes a tiny project (tests/node's tiny genome, no remote) once, then N
times: starts `hale dna dev` there and times it to the host's "running;"
line (the line it prints once the fence and the organization answer and its
first tick is due), then sends SIGTERM and times it to the process's exit
(the lease released and `node.stopped` written). Prints the median, the
minimum and the maximum of each, beside the goals of issue 33: start ≤ 0.5 s,
stop ≤ 0.3 s; and the CPU time the node's processes spent over its whole
life (host, fence, organization and the git they ran), which a loaded
machine stretches far less than the wall clock.

    .venv/bin/python bench/node_lifecycle.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(src: Path, log_path: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(seconds to "running;", seconds from SIGTERM to exit, CPU seconds) of one node."""
    cpu = _children_cpu()
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
    return started, stopped, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        src = project(Path(tmp), remote=False, new=False)
        env = {**os.environ, "HALE_CACHE_DIR": str(Path(tmp) / "cache")}
        # an installed hale starts from cached bytecode: without it each of the node's
        # processes compiles its ~80 modules again (~90 ms of CPU in the organization)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        once(src, Path(tmp) / "warm.log", env)  # build caches, as a restart finds them
        figures = [once(src, Path(tmp) / f"{i}.log", env) for i in range(runs)]
    starts, stops, cpus = zip(*figures, strict=True)
    for name, values in (("start", starts), ("stop", stops)):
        median = statistics.median(values)
        verdict = "within" if median <= GOALS[name] else "OVER"
        print(
            f"node {name}: median {median:.3f} s (min {min(values):.3f}, max {max(values):.3f}) "
            f"over {runs} runs, {verdict} the goal of {GOALS[name]} s"
        )
    print(f"node CPU over its life: median {statistics.median(cpus):.3f} s (min {min(cpus):.3f})")


if __name__ == "__main__":
    main()
