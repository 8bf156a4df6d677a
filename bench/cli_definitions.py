"""Benchmark of `hale dna definitions` on a new project, against `python -c pass`.

Both are started the same way (a fresh interpreter from the venv, by
subprocess), side by side in one run, best of N each:
  - baseline: `python -c pass`;
  - cold: `hale dna definitions` with HALE_CACHE_DIR pointing at an empty
    folder each time (parse, check, compile and run the genome);
  - warm: the same with the cache filled by an earlier run (one file read).
Printed as milliseconds and as ratios to the baseline. Bar (printed, not
asserted): warm at most 4x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VENV_BIN = Path(sys.executable).parent
HALE = [str(VENV_BIN / "python"), "-m", "hale_runtime.cli"]
if (VENV_BIN / "hale").exists():
    HALE = [str(VENV_BIN / "hale")]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def best(n: int, cmd: list[str], cwd: Path, env_for) -> float:
    return min(timed(cmd, cwd, env_for(i)) for i in range(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        base_env = {**os.environ, "HALE_CACHE_DIR": str(tmp_path / "warm")}
        subprocess.run(HALE + ["dna", "new", "p"], cwd=tmp, env=base_env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        project = tmp_path / "p"
        cmd = HALE + ["dna", "definitions"]
        timed(cmd, project, base_env)  # fill the warm cache
        python = best(args.runs, [sys.executable, "-c", "pass"], project, lambda i: base_env)
        cold = best(
            args.runs,
            cmd,
            project,
            lambda i: {**base_env, "HALE_CACHE_DIR": str(tmp_path / f"cold{i}")},
        )
        warm = best(args.runs, cmd, project, lambda i: base_env)
    print(f"python -c pass          {python * 1000:7.1f} ms   1.0x")
    print(f"definitions, cold cache {cold * 1000:7.1f} ms  {cold / python:4.1f}x")
    print(f"definitions, warm cache {warm * 1000:7.1f} ms  {warm / python:4.1f}x  (bar: 4x)")


if __name__ == "__main__":
    main()
