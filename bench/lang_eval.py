"""Hale evaluation speed against plain CPython, side by side in one run.

Each algorithm is written once in Hale and once in idiomatic Python; both
run the same number of times and the best time of each is kept (the
minimum is the least noisy estimate on a shared machine). The Hale side
runs with the step budget on, as a host runs it. Prints the Hale/CPython
ratio per algorithm; the bar is 1.3. Times are the thread's CPU time, so
that other processes on a shared machine weigh on neither side.

    .venv/bin/python bench/lang_eval.py [--repeat N]
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hale_lang.build import build  # noqa: E402

HALE = """
fn fib(n: Int) -> Int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}

fn sum_loop(n: Int) -> Int {
    let total = 0;
    for i in range(0, n) {
        total += i;
    }
    return total;
}

fn sum_while(n: Int) -> Int {
    let total = 0;
    let i = 0;
    while i < n {
        total += i;
        i += 1;
    }
    return total;
}

fn build_string(n: Int) -> Int {
    let s = "";
    for i in range(0, n) {
        s += "x";
    }
    return len(s);
}

fn build_pieces(n: Int) -> Int {
    let parts: List<String> = [];
    for i in range(0, n) {
        parts.push(to_string(i));
    }
    return len(parts.join(","));
}

fn map_updates(n: Int) -> Int {
    let m: Map<Int, Int> = {};
    for i in range(0, n) {
        let k = i % 1000;
        m[k] = m.get_or(k, 0) + i;
    }
    return len(m);
}
"""


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def sum_loop(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def sum_while(n: int) -> int:
    total = 0
    i = 0
    while i < n:
        total += i
        i += 1
    return total


def build_string(n: int) -> int:
    s = ""
    for _ in range(n):
        s += "x"
    return len(s)


def build_pieces(n: int) -> int:
    parts = []
    for i in range(n):
        parts.append(str(i))
    return len(",".join(parts))


def map_updates(n: int) -> int:
    m: dict[int, int] = {}
    for i in range(n):
        k = i % 1000
        m[k] = m.get(k, 0) + i
    return len(m)


CASES = [
    ("recursive fib(25)", "fib", fib, 25),
    ("sum 10^6 ints (for)", "sum_loop", sum_loop, 10**6),
    ("sum 10^6 ints (while)", "sum_while", sum_while, 10**6),
    ("10^5-piece string (+=)", "build_string", build_string, 10**5),
    ("10^5-piece string (join)", "build_pieces", build_pieces, 10**5),
    ("10^5 map updates", "map_updates", map_updates, 10**5),
]


def interleaved(hale, py, arg, repeat: int) -> tuple[float, float, object, object]:
    """Best-of-`repeat` times of both sides, alternating runs so that load
    from other processes falls on both alike."""
    th = tp = float("inf")
    rh = rp = None
    for _ in range(repeat):
        gc.collect()
        t = time.thread_time()
        rh = hale(arg)
        th = min(th, time.thread_time() - t)
        gc.collect()
        t = time.thread_time()
        rp = py(arg)
        tp = min(tp, time.thread_time() - t)
    return th, tp, rh, rp


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "bench.hl").write_text(HALE)
        program = build(root, ["bench.hl"], use_cache=False)
    print(f"{'case':28} {'hale ms':>9} {'cpython ms':>11} {'ratio':>6}")
    worst = 0.0
    for label, name, py, arg in CASES:
        hale = functools.partial(program.call, "bench.hl", name)
        th, tp, rh, rp = interleaved(hale, py, arg, repeat)
        assert rh == rp, (label, rh, rp)
        ratio = th / tp
        worst = max(worst, ratio)
        print(f"{label:28} {th * 1000:9.1f} {tp * 1000:11.1f} {ratio:6.2f}")
    print(f"worst ratio {worst:.2f} (bar: 1.30, step budget {program.step_budget:,} per call)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
