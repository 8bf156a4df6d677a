"""Benchmark of the row doors: what checking each row against its kind costs.

Side by side in one run, rounds alternating which side goes first, over the
same rows (a mix of the engine's kinds, as a round writes them):
  - writing: `new_row` (the canonical line and id, with the check) against
    the same with the check skipped;
  - reading: `read_line` (decode, verify the id) followed by `check_row`
    against `read_line` alone.
Prints min and median over the rounds, and the ratio of the medians. Bar
(printed, not asserted): the check adds under 50% to either door.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from hale_runtime.record import kinds, row
from hale_runtime.record.row import new_row, read_line

PLAN = {"id": "ask-edit", "rev": 1, "summary": "an ask", "steps": [{"store": "record", "members": [
    {"key": "e", "objective": "do it", "requires": ["edit"], "attempts": 2}]}]}  # fmt: skip


def items(n: int) -> list[tuple[str, str, dict]]:
    """`n` rows as an engine round writes them: admissions, attempts, outcomes, settlements."""
    out = []
    for i in range(n // 5):
        t = f"t{i}"
        a = f"{t}/wf1/s0/e/a0"
        out += [
            (kinds.WORKFLOW_ADMITTED, t, {"ask": f"i-{i}", "convener": "leader",
                                          "definition": "ask-edit@1", "inputs": {}, "plan": PLAN}),
            (kinds.ATTEMPT_ADMITTED, a, {"performer": "editor"}),
            (kinds.ATTEMPT_CLAIMED, a, {"holder": "org@box:c0", "token": i}),
            (kinds.ATTEMPT_OUTCOME, a, {"outcome": "succeeded", "performer": "editor",
                                        "detail": "prepared"}),
            (kinds.WORK_SETTLED, f"{t}/wf1/s0/e", {"outcome": "succeeded", "attempts": 1}),
        ]  # fmt: skip
    return out


def timed(act: Callable[[], object]) -> float:
    start = time.perf_counter()
    act()
    return time.perf_counter() - start


def write_all(rows: list[tuple[str, str, dict]]) -> list[str]:
    return [new_row(k, key, body, "org@box:c0", 1, "c0")[1] for k, key, body in rows]


def unchecked(act: Callable[[], object]) -> Callable[[], object]:
    """`act` with the kinds check skipped (the door open)."""

    def run() -> object:
        saved = row.kinds.check_row
        row.kinds.check_row = lambda *_: ""
        try:
            return act()
        finally:
            row.kinds.check_row = saved

    return run


def read_all(lines: list[str], check: bool) -> None:
    for line in lines:
        r = read_line(line, 0, "bench")
        if check:
            kinds.check_row(*r[:6])


def pair(name: str, with_check: Callable[[], object], without: Callable[[], object],
         rounds: int, n: int) -> None:  # fmt: skip
    on, off = [], []
    for k in range(rounds):
        sides = [(on, with_check), (off, without)]
        for store, act in sides if k % 2 == 0 else reversed(sides):
            store.append(timed(act))
    us = [1e6 * t / n for t in on], [1e6 * t / n for t in off]
    ratio = statistics.median(on) / statistics.median(off)
    print(
        f"{name:8} checked {min(us[0]):6.2f} / {statistics.median(us[0]):6.2f} µs a row, "
        f"unchecked {min(us[1]):6.2f} / {statistics.median(us[1]):6.2f}  (min / median); "
        f"ratio {ratio:.2f}x ({'meets' if ratio < 1.5 else 'PAST'} the 1.5x bar)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rows = items(args.rows)
    lines = write_all(rows)
    print(f"{len(rows)} rows a side, {args.rounds} rounds")
    pair("writing", lambda: write_all(rows), unchecked(lambda: write_all(rows)),
         args.rounds, len(rows))  # fmt: skip
    pair("reading", lambda: read_all(lines, True), lambda: read_all(lines, False),
         args.rounds, len(rows))  # fmt: skip


if __name__ == "__main__":
    main()
