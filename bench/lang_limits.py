"""How promptly the designed errors come, for the programs issue 13 listed.

Each case runs under the default limits (10,000,000 steps, a 64 MiB memory
ceiling, 1,000 nested calls) and prints the diagnostic's code and the wall
time to it, the best of a few rounds. The bar is under a second each.

    .venv/bin/python bench/lang_limits.py [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hale_lang.build import build  # noqa: E402
from hale_lang.diagnostics import HaleError  # noqa: E402

SOURCE = """
fn square_40(x: Int) -> Int {
    let i = 0;
    while i < 40 { x = x * x; i += 1; }
    return x % 10;
}
fn double_string_40(s: String) -> Int {
    let i = 0;
    while i < 40 { s = s + s; i += 1; }
    return len(s);
}
fn double_list_40(xs: List<Int>) -> Int {
    let i = 0;
    while i < 40 { xs = xs.concat(xs); i += 1; }
    return len(xs);
}
fn push_forever(x: Int) -> Int {
    let xs = [x];
    for y in xs { xs.push(y + 1); }
    return len(xs);
}
fn recurse(n: Int) -> Int {
    return recurse(n + 1) + 1;
}
fn big_text(x: Int) -> Int {
    let i = 0;
    while i < 16 { x = x * x; i += 1; }
    return len(to_string(x)) + len(to_string(to_int(to_string(x))));
}
"""

CASES = [
    ("square an Int 40 times", "square_40", 3),
    ("double a String 40 times", "double_string_40", "ab"),
    ("double a List 40 times", "double_list_40", [1, 2]),
    ("push while iterating", "push_forever", 1),
    ("recursion without a base case", "recurse", 0),
    ("print and read a 55,000-digit Int", "big_text", 7),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "m.hl").write_text(SOURCE)
        program = build(root, ["m.hl"], use_cache=False)
    print(f"{'case':34} {'outcome':>10} {'best s':>8} {'worst s':>8}")
    for label, fn, arg in CASES:
        times, outcome = [], ""
        for _ in range(rounds):
            t = time.perf_counter()
            try:
                program.call("m.hl", fn, arg)
                outcome = "ok"
            except HaleError as e:
                outcome = e.diagnostics[0].code
            times.append(time.perf_counter() - t)
        print(f"{label:34} {outcome:>10} {min(times):8.3f} {max(times):8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
