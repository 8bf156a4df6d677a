"""What the peer benches share: running a side in a fresh process, alternating
rounds, and printing a table of min and median with ratios.

Each side of a comparison runs in its own Python process (a peer such as
DBOS is a process-wide singleton, and neither side should inherit the
other's heap or threads); the child prints one JSON line, its measurement.
Sides alternate round by round so the noise of a shared machine falls on
both.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def installed(module: str, peer: str) -> bool:
    """True when `module` imports; otherwise say which peer is skipped and how to get it."""
    if importlib.util.find_spec(module) is not None:
        return True
    print(f"  (skipped: {peer} is not installed; `pip install -e .[peers]` brings it)")
    return False


def child(script: Path, args: Sequence[str], env: dict[str, str] | None = None) -> dict:
    """Run `python script args` and return the JSON object it prints last."""
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{script.name} {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])


def alternate(sides: dict[str, Callable[[int], float]], rounds: int) -> dict[str, list[float]]:
    """Each side's figure per round, the sides taken in turn within every round."""
    figures: dict[str, list[float]] = {name: [] for name in sides}
    for n in range(rounds):
        order = list(sides.items())
        if n % 2:
            order.reverse()  # neither side always goes first
        for name, side in order:
            figures[name].append(side(n))
    return figures


def table(
    title: str,
    figures: dict[str, list[float]],
    unit: str,
    base: str,
    higher_is_better: bool,
) -> None:
    """Print best and median of each side and its median's ratio to `base`'s median."""
    print(title)
    pick = max if higher_is_better else min
    reference = statistics.median(figures[base])
    for name, values in figures.items():
        mid = statistics.median(values)
        print(
            f"  {name:<48} best {pick(values):>10,.1f}  median {mid:>10,.1f} {unit}"
            f"  {mid / reference:6.2f}x"
        )
    print(f"  (ratios: each median over {base}'s)")
