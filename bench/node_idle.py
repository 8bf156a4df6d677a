"""What an idle node costs: CPU per tick of host, fence and organization together.

Writes a tiny project in a temporary folder, starts `hale dna dev` there with
the seeds' timings (a tick a second, the lease renewed every 10 s), waits for
it to run, lets it settle, then reads the CPU time (user + system, and that
of their reaped children, such as the fence's git calls) of the three
processes from /proc before and after N ticks of wall time. Twice: a record
with no remote, and one with a bare remote (so every tick syncs and the
fence pushes). The genome is a tiny one (nothing plugged into the
organization) or, with --new, the one `hale dna new` writes (the catalog
loads, so the engine and the loci run their ticks). Prints CPU per tick,
by process, and the share of one core. Bar: under 2%.

    .venv/bin/python bench/node_idle.py [--ticks 30] [--new]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# node_helpers takes wait_for from tests/waiting.py, a folder up
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "node"))
from node_helpers import TINY_GENOME, children_of, sh  # noqa: E402

HALE = str(Path(sys.executable).parent / "hale")
TICKS_S = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICKS_S


def project(folder: Path, remote: bool, new: bool) -> Path:
    """A tiny genome, or with `new` the one `hale dna new` writes (its loci run)."""
    src = folder / "project"
    if new:
        sh(folder, HALE, "dna", "new", str(src))
    else:
        sh(folder, "git", "init", "-q", "--initial-branch=main", str(src))
        for rel, text in TINY_GENOME.items():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_text(text)
        sh(src, "git", "add", "dna")
        sh(src, "git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "genome")
    if remote:
        sh(folder, "git", "init", "-q", "--bare", "--initial-branch=main", str(folder / "r.git"))
        sh(src, "git", "remote", "add", "origin", str(folder / "r.git"))
        sh(src, "git", "push", "-q", "origin", "main")
    return src


def measure(remote: bool, ticks: int, new: bool) -> tuple[float, float, dict[str, float]]:
    """(CPU seconds per tick, share of one core, per tick by process) of an idle node."""
    with tempfile.TemporaryDirectory() as tmp:
        src = project(Path(tmp), remote, new)
        env = {**os.environ, "HALE_CACHE_DIR": str(Path(tmp) / "cache")}
        log = open(Path(tmp) / "log", "w")
        node = subprocess.Popen([HALE, "dna", "dev"], cwd=src, stdout=log, stderr=log, env=env)
        try:
            deadline = time.monotonic() + 60
            while (
                len(kids := children_of(node.pid)) < 2
                or "running;" not in (Path(tmp) / "log").read_text()
            ):
                if time.monotonic() > deadline or node.poll() is not None:
                    raise SystemExit(f"the node did not start:\n{(Path(tmp) / 'log').read_text()}")
                time.sleep(0.1)
            time.sleep(3.0)  # let start-up work settle
            pids = {"host": node.pid, **kids}
            before, wall0 = {k: cpu_seconds(p) for k, p in pids.items()}, time.monotonic()
            time.sleep(ticks * 1.0)
            each = {k: cpu_seconds(p) - before[k] for k, p in pids.items()}
            spent, wall = sum(each.values()), time.monotonic() - wall0
        finally:
            node.send_signal(signal.SIGTERM)
            node.wait(30)
            log.close()
    return spent / ticks, spent / wall, {k: v / ticks for k, v in each.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ticks", type=int, default=30)
    parser.add_argument("--new", action="store_true", help="the `hale dna new` genome")
    args = parser.parse_args()
    for remote in (False, True):
        per_tick, share, each = measure(remote, args.ticks, args.new)
        where = "with a bare remote" if remote else "no remote"
        where += ", `hale dna new` genome" if args.new else ", tiny genome"
        print(
            f"idle node ({where}): {per_tick * 1000:.2f} ms CPU per tick, "
            f"{share * 100:.2f}% of one core over {args.ticks} ticks "
            f"({'under' if share < 0.02 else 'OVER'} the 2% bar)"
        )
        print("  per tick: " + ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in each.items()))


if __name__ == "__main__":
    main()
