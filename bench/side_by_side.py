"""Two versions of hale, side by side in one run: two commits of this repository.

Checks both commits out in temporary worktrees (the new one is HEAD unless
`--new` names another, so the tree may be edited meanwhile), then runs each
bench script
given, alternating the two trees round by round (each run a fresh process,
the tree first on PYTHONPATH), so that load from other processes falls on
both alike. Every line a script prints that ends in numbers is a row; the
table gives each number's min and median over the rounds for both trees,
and new/base of the medians. Times are what the scripts print: this tool
only runs them.

    .venv/bin/python bench/side_by_side.py --base HEAD~1 [--new HEAD] \
        bench/lang_eval.py bench/lang_parse.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def rows(output: str) -> dict[str, list[float]]:
    """A table's rows: columns are separated by two spaces or more; the first
    is the label, and each other column's first number is a value:
    `fib(25)   47.1   24.7  1.90` -> {"fib(25)": [47.1, 24.7, 1.9]}."""
    found: dict[str, list[float]] = {}
    for line in output.splitlines():
        label, *cols = re.split(r"\s{2,}", line.strip())
        values = [NUMBER.search(c) for c in cols]
        if label and values and all(values):
            found[label] = [float(m.group().replace(",", "")) for m in values if m]
    return found


def run(tree: Path, script: str, args: list[str]) -> dict[str, list[float]]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, str(tree / script), *args],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return rows(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--new", default="HEAD", help="the commit to measure (default HEAD)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("scripts", nargs="+")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"base": Path(tmp) / "base", "new": Path(tmp) / "new"}
        try:
            for name, rev in (("base", opts.base), ("new", opts.new)):
                subprocess.run(
                    ["git", "-C", str(HERE), "worktree", "add", "--detach", str(trees[name]), rev],
                    check=True,
                    capture_output=True,
                )
            for script in opts.scripts:
                for tree in trees.values():
                    shutil.copy(HERE / script, tree / script)
                compare(script, trees, opts.rounds)
        finally:
            for tree in trees.values():
                subprocess.run(
                    ["git", "-C", str(HERE), "worktree", "remove", "--force", str(tree)],
                    check=False,
                    capture_output=True,
                )
    return 0


def compare(script: str, trees: dict[str, Path], rounds: int) -> None:
    seen: dict[str, dict[str, list[list[float]]]] = {name: {} for name in trees}
    for r in range(rounds):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        for name in order:
            for label, numbers in run(trees[name], script, []).items():
                seen[name].setdefault(label, []).append(numbers)
    print(f"\n{script}: {rounds} rounds, alternating (min / median)")
    print(f"{'row':34} {'col':>3} {'base':>21} {'new':>21} {'new/base':>8}")
    for label, runs in seen["new"].items():
        old = seen["base"].get(label)
        if not old:
            continue
        for col in range(min(len(runs[0]), len(old[0]))):
            a = [x[col] for x in old if len(x) > col]
            b = [x[col] for x in runs if len(x) > col]
            ma, mb = statistics.median(a), statistics.median(b)
            ratio = f"{mb / ma:8.2f}" if ma else "       -"
            print(
                f"{label[:34]:34} {col:>3} {min(a):>10,.1f} {ma:>10,.1f} "
                f"{min(b):>10,.1f} {mb:>10,.1f} {ratio}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
