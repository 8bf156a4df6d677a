"""Build speed on a generated 10,000-line genome: cold and warm, against
CPython's `ast.parse` of an equivalent Python file, in one run.

The genome is generated from templates shaped like real genome code: a
module of structs and consts, then modules of catalog definitions like the
seeds' own_workflows, scheduler-like loops over lists and maps, comments
and blank lines. "cold" is load + parse + check + compile with an empty
build cache (and a fresh parse cache); "warm" is the same build answered
from the disk build cache. Also prints each phase alone, each the best of
7 runs in thread CPU time. Goal: parse + check at least 30,000 lines/s.
Bars: cold at least 10,000 lines/s; warm at least 20x faster than cold.

    .venv/bin/python bench/lang_parse.py [--lines N]
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hale_lang.build import build, compile_entries  # noqa: E402
from hale_lang.cache import ParseCache  # noqa: E402
from hale_lang.checker import check  # noqa: E402
from hale_lang.compiler import compile_program  # noqa: E402
from hale_lang.loader import Loader  # noqa: E402

TYPES = """\
// Types shared by every generated module.

struct WorkRequest { objective: String, requires: String }
struct Slot { id: String, due: Int, runs: Int }

host type WorkflowCatalog {
    fn define(id: String, rev: Int, stores: String, summary: String) -> String;
    fn leaf(id: String, rev: Int, step: Int, key: String, work: WorkRequest, attempts: Int) -> String;
    fn occurs(id: String, rev: Int, mode: String, input: String) -> String;
}

const MINUTE: Int = 60000;
"""

UNIT = """\
// Definition {i}: close period {i}, reconcile then post.
fn define_{i}(catalog: t::WorkflowCatalog) -> String {{
    let d = catalog.define("close-{i}", 1, "record record", "close period {i}");
    if len(d) > 0 {{ return d; }}
    let a = catalog.leaf("close-{i}", 1, 0, "reconcile", t::WorkRequest {{ objective: "reconcile feed {i}", requires: "analysis" }}, 2);
    if len(a) > 0 {{ return a; }}
    let b = catalog.leaf("close-{i}", 1, 1, "post", t::WorkRequest {{ objective: "post entries {i}", requires: "human" }}, 1);
    if len(b) > 0 {{ return b; }}
    return catalog.occurs("close-{i}", 1, "skip", "period");
}}

// Scheduler pass {i}: which slots are due, skipping the ones still open.
fn due_{i}(slots: List<t::Slot>, open: Map<String, Bool>, now: Int) -> List<String> {{
    let out: List<String> = [];
    let skipped = 0;
    for s in slots {{
        if s.due > now {{
            continue;
        }}
        if open.get_or(s.id, false) {{
            skipped += 1;
        }} else {{
            out.push(s.id);
        }}
    }}
    let i = 0;
    while i < len(out) && skipped > 0 {{
        i = i + 1;
    }}
    return out;
}}

"""

PY_UNIT = """\
# Definition {i}: close period {i}, reconcile then post.
def define_{i}(catalog):
    d = catalog.define("close-{i}", 1, "record record", "close period {i}")
    if len(d) > 0: return d
    a = catalog.leaf("close-{i}", 1, 0, "reconcile", WorkRequest(objective="reconcile feed {i}", requires="analysis"), 2)
    if len(a) > 0: return a
    b = catalog.leaf("close-{i}", 1, 1, "post", WorkRequest(objective="post entries {i}", requires="human"), 1)
    if len(b) > 0: return b
    return catalog.occurs("close-{i}", 1, "skip", "period")

# Scheduler pass {i}: which slots are due, skipping the ones still open.
def due_{i}(slots, open, now):
    out = []
    skipped = 0
    for s in slots:
        if s.due > now:
            continue
        if open.get(s.id, False):
            skipped += 1
        else:
            out.append(s.id)
    i = 0
    while i < len(out) and skipped > 0:
        i = i + 1
    return out

"""

PER_MODULE = 20  # units per module: ~40 lines each


def generate(root: Path, lines: int) -> tuple[list[str], int, str]:
    (root / "lib").mkdir(parents=True)
    (root / "lib/types.hl").write_text(TYPES)
    unit_lines = UNIT.count("\n")
    units = max(1, (lines - TYPES.count("\n")) // unit_lines)
    entries, total, py = [], TYPES.count("\n"), []
    for m in range(0, units, PER_MODULE):
        body = "".join(UNIT.format(i=i) for i in range(m, min(m + PER_MODULE, units)))
        text = '// Generated genome module.\nimport "lib/types" as t;\n\n' + body
        path = f"dna/gen_{m // PER_MODULE:03}.hl"
        (root / path).parent.mkdir(exist_ok=True)
        (root / path).write_text(text)
        entries.append(path)
        total += text.count("\n")
        py.append("".join(PY_UNIT.format(i=i) for i in range(m, min(m + PER_MODULE, units))))
    return entries, total, "".join(py)


class _Catalog:
    def define(self, *args: object) -> str:
        return ""

    leaf = occurs = define


def timed(fn, repeat: int = 7, setup=None) -> float:
    """The best of `repeat` runs, in the thread's CPU time (so that other
    processes on a shared machine weigh on neither side). Given `setup`,
    each run times `fn(setup())`, the setup itself untimed."""
    best = float("inf")
    for _ in range(repeat):
        arg = () if setup is None else (setup(),)
        t = time.thread_time()
        fn(*arg)
        best = min(best, time.thread_time() - t)
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000)
    lines_wanted = parser.parse_args().lines
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "genome"
        entries, lines, py_source = generate(root, lines_wanted)
        os.environ["HALE_CACHE_DIR"] = str(Path(tmp) / "cache")

        def cold() -> None:
            compile_entries(root, entries, use_cache=False)

        def warm() -> None:
            assert compile_entries(root, entries).from_cache

        t_cold = timed(cold)
        compile_entries(root, entries)  # fill the build cache
        t_warm = timed(warm, repeat=5)

        def load():
            return Loader(root, ParseCache()).load(*entries)

        # each phase is its own best: one phase's noise never lands on another
        t_parse = timed(load)
        t_check = timed(check, setup=load)
        t_pc = timed(lambda: check(load()))
        loaded = load()
        check(loaded)
        t_codegen = timed(lambda: compile_program(loaded))
        bindings = {"lib/types.hl::WorkflowCatalog": _Catalog}
        t_program = timed(lambda: build(root, entries, bindings=bindings))
        t_py = timed(lambda: ast.parse(py_source), repeat=5)
        py_lines = py_source.count("\n")

    print(f"genome: {lines:,} lines in {len(entries) + 1} modules")
    print(f"  parse (lark + tree)      {t_parse * 1000:8.1f} ms  {lines / t_parse:10,.0f} lines/s")
    print(f"  check                    {t_check * 1000:8.1f} ms")
    print(f"  codegen + compile()      {t_codegen * 1000:8.1f} ms")
    print(f"cold build (all of it)     {t_cold * 1000:8.1f} ms  {lines / t_cold:10,.0f} lines/s")
    print(f"warm build (cache hit)     {t_warm * 1000:8.1f} ms  {lines / t_warm:10,.0f} lines/s")
    print(f"warm build + Program ready {t_program * 1000:8.1f} ms")
    print(f"CPython ast.parse          {t_py * 1000:8.1f} ms  {py_lines / t_py:10,.0f} lines/s")
    print(f"cold build / ast.parse     {t_cold / t_py:8.1f}x the time (same algorithms in Python)")
    print(
        f"cold parse + check         {t_pc * 1000:8.1f} ms  {lines / t_pc:10,.0f} lines/s (goal: 30,000)"
    )
    print(f"warm speed-up over cold    {t_cold / t_warm:8.1f}x (bar: 20x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
