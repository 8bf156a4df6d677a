"""The language, hale against Starlark (Rust and Go) and CPython, side by side.

The same programs in Hale, Starlark (starlark-pyo3, the Rust interpreter;
starlark-go, the Go one, its recursion and `while` switched on) and Python:

- fib(25), recursive;
- the sum of 10^6 Ints in a `for` loop;
- a 10^5-entry map built, then read back entry by entry;
- a 10^5-piece join (each piece an Int as text);
- a 10^5-item filter (the multiples of 3);
- a cold load of a generated 1,000-line module: Hale's parse, check, compile
  and program ready (no cache); Starlark's parse and evaluation of the
  module; CPython's `compile()` of the equivalent Python (and `exec`).
  Beside it, not in the table: Hale's warm load, a fresh clone of the same
  module built from the build cache another clone filled.

Each side runs in a fresh process per round (a peer's interpreter state is
process-wide), the sides alternating round by round; a process times each
case as the best of a few runs in the process's CPU time (all its threads:
a peer may use threads of its own), so that other processes on a shared
machine weigh on no side. Hale runs with its step budget and memory meter on, as a host
runs it. A peer that is not installed is skipped, saying so.

    .venv/bin/python bench/peers/lang.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from common import alternate, child, installed, table  # noqa: E402

N_SUM, N_MAP, N_JOIN, N_FILTER, UNITS = 10**6, 10**5, 10**5, 10**5, 56
CASES = ["fib(25)", "sum 10^6", "map 10^5", "join 10^5", "filter 10^5", "cold load 1,000 lines"]
REPEAT = 5

HALE = """
fn fib(n: Int) -> Int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}

fn sum(n: Int) -> Int {
    let total = 0;
    for i in range(0, n) { total += i; }
    return total;
}

fn map_rw(n: Int) -> Int {
    let m: Map<Int, Int> = {};
    for i in range(0, n) { m[i] = i * 2; }
    let total = 0;
    for i in range(0, n) { total += m[i]; }
    return total;
}

fn join(n: Int) -> Int {
    let parts: List<String> = [];
    for i in range(0, n) { parts.push(to_string(i)); }
    return len(parts.join(","));
}

fn filter(n: Int) -> Int {
    let xs = range(0, n);
    let out: List<Int> = [];
    for x in xs {
        if x % 3 == 0 { out.push(x); }
    }
    return len(out);
}
"""

PYTHON = """
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def sum_(n):
    total = 0
    for i in range(n):
        total += i
    return total

def map_rw(n):
    m = {}
    for i in range(n):
        m[i] = i * 2
    total = 0
    for i in range(n):
        total += m[i]
    return total

def join(n):
    parts = []
    for i in range(n):
        parts.append(str(i))
    return len(",".join(parts))

def filter_(n):
    xs = list(range(n))
    out = []
    for x in xs:
        if x % 3 == 0:
            out.append(x)
    return len(out)
"""

CALLS = {
    "fib(25)": ("fib", 25),
    "sum 10^6": ("sum_", N_SUM),
    "map 10^5": ("map_rw", N_MAP),
    "join 10^5": ("join", N_JOIN),
    "filter 10^5": ("filter_", N_FILTER),
}
HALE_FN = {"sum_": "sum", "filter_": "filter"}

UNIT_HALE = """fn work_{i}(xs: List<Int>, m: Map<String, Int>) -> Int {{
    let total = 0;
    for x in xs {{
        if x % {k} == 0 {{
            total += x * {i};
        }} else {{
            total -= 1;
        }}
    }}
    let key = "k{i}";
    if m.contains_key(key) {{
        total += m[key];
    }}
    let parts: List<String> = [];
    for j in range(0, 3) {{
        parts.push(to_string(j + {i}));
    }}
    return total + len(parts.join(","));
}}

"""

UNIT_PY = """def work_{i}(xs, m):
    total = 0
    for x in xs:
        if x % {k} == 0:
            total += x * {i}
        else:
            total -= 1
    key = "k{i}"
    if key in m:
        total += m[key]
    parts = []
    for j in range(3):
        parts.append(str(j + {i}))
    return total + len(",".join(parts))

"""


def module(unit: str) -> str:
    """The generated module: UNITS functions of 18 lines, 1,008 lines in all."""
    return "".join(unit.format(i=i, k=2 + i % 7) for i in range(UNITS))


def best(fn) -> float:
    """Seconds, the best of REPEAT runs."""
    out = float("inf")
    for _ in range(REPEAT):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


# --- each side, in its own process --------------------------------------------------


def run_hale() -> dict[str, float]:
    from hale_lang.build import build

    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "b.hl").write_text(HALE)
        program = build(root, ["b.hl"], use_cache=False)
        (Path(root) / "m.hl").write_text(module(UNIT_HALE))
        build(root, ["m.hl"], use_cache=False)  # the toolchain warm, as a peer's parser is
        out = {}
        for case, (fn, arg) in CALLS.items():
            name = HALE_FN.get(fn, fn)
            out[case] = best(lambda f=name, a=arg: program.call("b.hl", f, a))
        out[CASES[-1]] = best(lambda: build(root, ["m.hl"], use_cache=False))
        out["warm load"] = _warm(root, build)
    return out


def _warm(root: str, build) -> float:
    """A build of the module in a fresh clone of the genome, from the build
    cache another clone filled (not the bench's cold load: a figure beside it)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as other:
        saved = os.environ.get("HALE_CACHE_DIR")
        os.environ["HALE_CACHE_DIR"] = cache
        try:
            build(root, ["m.hl"])  # this clone fills the cache
            (Path(other) / "m.hl").write_text((Path(root) / "m.hl").read_text())
            return best(lambda: build(other, ["m.hl"]))
        finally:
            if saved is None:
                del os.environ["HALE_CACHE_DIR"]
            else:
                os.environ["HALE_CACHE_DIR"] = saved


def run_python() -> dict[str, float]:
    ns: dict = {}
    exec(PYTHON, ns)
    out = {case: best(lambda f=ns[fn], a=arg: f(a)) for case, (fn, arg) in CALLS.items()}
    source = module(UNIT_PY)
    out[CASES[-1]] = best(lambda: compile(source, "m.py", "exec"))
    out["cold load + exec"] = best(lambda: exec(compile(source, "m.py", "exec"), {}))
    return out


def run_pyo3() -> dict[str, float]:
    import starlark as sl

    globals_ = sl.Globals.standard()
    mod = sl.Module()
    sl.eval(mod, sl.parse("b.star", PYTHON), globals_)

    def call(fn: str, arg: int) -> object:
        return sl.eval(mod, sl.parse("call.star", f"{fn}({arg})"), globals_)

    out = {case: best(lambda f=fn, a=arg: call(f, a)) for case, (fn, arg) in CALLS.items()}
    source = module(UNIT_PY)
    out[CASES[-1]] = best(lambda: sl.eval(sl.Module(), sl.parse("m.star", source), globals_))
    return out


def run_go() -> dict[str, float]:
    from starlark_go import Starlark, configure_starlark

    configure_starlark(allow_recursion=True)
    star = Starlark()
    star.exec(PYTHON)
    out = {
        case: best(lambda f=fn, a=arg: star.eval(f"{f}({a})")) for case, (fn, arg) in CALLS.items()
    }
    source = module(UNIT_PY)
    out[CASES[-1]] = best(lambda: Starlark().exec(source))
    return out


SIDES = {
    "hale": (None, run_hale),
    "CPython": (None, run_python),
    "starlark-pyo3 (Rust)": ("starlark", run_pyo3),
    "starlark-go (Go)": ("starlark_go", run_go),
}


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--side":
        print(json.dumps(SIDES[sys.argv[2]][1]()))
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    print(f"The language: {rounds} rounds, sides alternating, best of {REPEAT} runs a round")
    sides = {}
    for name, (module_name, _) in SIDES.items():
        if module_name is None or installed(module_name, name):
            sides[name] = name
    results: dict[str, list[dict]] = {name: [] for name in sides}

    def side(name: str):
        def once(_round: int) -> float:
            results[name].append(child(HERE, ["--side", name]))
            return 0.0

        return once

    alternate({name: side(name) for name in sides}, rounds)
    for case in CASES:
        figures = {name: [r[case] * 1000 for r in results[name]] for name in sides}
        table(f"\n{case} (ms)", figures, "ms", "CPython", higher_is_better=False)
    extra = [r["cold load + exec"] * 1000 for r in results["CPython"]]
    print(f"\n  (CPython compile + exec of the module: best {min(extra):.1f} ms)")
    hale_cold = sorted(r[CASES[-1]] for r in results["hale"])[len(results["hale"]) // 2]
    print(f"  hale cold load: {1008 / hale_cold:,.0f} lines/s (parse, check, compile, ready)")
    warm = [r["warm load"] * 1000 for r in results["hale"]]
    compiled = sorted(r[CASES[-1]] * 1000 for r in results["CPython"])[len(warm) // 2]
    median = sorted(warm)[len(warm) // 2]
    print(
        f"  hale warm load, a fresh clone from the build cache: best {min(warm):.2f} ms, "
        f"median {median:.2f} ms ({median / compiled:.2f}x CPython's compile)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
