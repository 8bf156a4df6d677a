"""Benchmark of cost against age: a record of N settled executions, and what a
start, a read by key and the git store cost at that age.

The record (default 1,000,000 executions; `--executions N`) is built once
and kept (`--keep DIR`, default /tmp/hale-longevity-<N>): a project made by
`hale dna new`, whose record holds one-leaf executions written the way the
engine writes them (the rows of real executions, run once by the real
engine, copied under new task ids and asks), a thousand to a commit as the
engine's rounds write them, one a minute: plain asks (`ask-<n>`), asks
relayed from people (`intent.requested`, `intent.offered`) and a schedule's
occurrences (`schedule.declared`, `sched:walk@<time>`). Building it ends
with one start that folds the whole record and writes a checkpoint.

Measured side by side in one run, the two sides alternated, each start in a
fresh process (min and median of `--rounds`):
  - the start of an organization (Organization + load: the record opened,
    every fold restored or folded), from its checkpoint and from the whole
    record, and the peak RSS of that process;
  - `hale dna history KEY` and `hale dna show TASK` on an old task, through
    the index, against a scan of the whole record;
  - the debugger's first screen opened on that task (its model and tree);
  - the git store: as written (loose), after the node's maintenance, and
    the same objects fully packed (`git repack -a -d -f`);
  - the size of the record's index (`.git/hale/record.index`).
Goals (printed, not asserted): start < 1 s and peak RSS < 200 MB at 10^6
executions; `show TASK` < 100 ms; store after maintenance / packed <= 1.5.

    nice .venv/bin/python bench/longevity.py [--executions N] [--keep DIR] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

HOLDER = "bench@node:0000beef"
START_MS = 1_764_374_400_000  # 2025-11-29T00:00Z
MINUTE = 60_000
PER_COMMIT = 1000
DEFINITION = "bench-one"
WORKFLOWS = """import "vendor/dna" as dna;

fn own_workflows(catalog: dna::WorkflowCatalog) -> String {
    let d = catalog.define("bench-one", 1, "record", "one leaf");
    if len(d) > 0 { return d; }
    let l = catalog.leaf("bench-one", 1, 0, "plan", dna::WorkRequest { objective: "plan it", requires: "organism" }, 1);
    if len(l) > 0 { return l; }
    return catalog.occurs("bench-one", 1, "skip", "");
}
"""


# ---- building the record ---------------------------------------------------------


def new_project(root: Path) -> None:
    from hale_runtime.cli import hale

    result = CliRunner().invoke(hale, ["dna", "new", str(root)])
    assert result.exit_code == 0, result.output
    (root / "dna" / "org" / "own_workflows.hl").write_text(WORKFLOWS)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "bench workflows"], check=True)


def templates(root: Path) -> list[list[tuple[str, str, dict]]]:
    """The rows the real engine writes for one execution, once per flavour."""
    from hale_runtime.catalog import load_catalog
    from hale_runtime.engine import Engine
    from hale_runtime.memory import open_memory
    from hale_runtime.performers import Performers, plugin_manager
    from hale_runtime.record import Record

    scratch = Path(tempfile.mkdtemp(prefix="hale-longevity-template-"))
    try:
        import pygit2

        pygit2.init_repository(str(scratch))
        memory = open_memory(scratch / ".git" / "hale" / "memory.sqlite3")
        memory.migrate()
        record = Record.open(scratch, who=HOLDER)
        engine = Engine(record, memory, Performers(plugin_manager(entry_points=False)))
        catalog = load_catalog(root)
        for ask in ("ask-0", "i-0", "sched:walk@2025-11-29T00:00Z"):
            engine.admit_from(catalog, DEFINITION, ask, "position:leader", {})
            engine.pump()
        by_task: dict[str, list[tuple[str, str, dict]]] = {}
        for r in record.rows():
            by_task.setdefault(r.key.split("/", 1)[0], []).append((r.kind, r.key, r.body))
        return [by_task["t1"], by_task["t2"], by_task["t3"]]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def execution(flavour: list, n: int, at: int) -> list[tuple[str, str, dict]]:
    """Execution n's rows: the template's, under `t<n>` and its own ask."""
    task = f"t{n}"
    kind_of = n % 3
    ask = (f"ask-{n}", f"i-{n}", f"sched:walk@{stamp(at)}")[kind_of]
    out: list[tuple[str, str, dict]] = []
    if kind_of == 1:
        out.append(("intent.requested", ask, {"objective": f"ask {n}", "by": "ann@desk"}))
        out.append(("intent.offered", ask, {"definition": f"{DEFINITION}@1"}))
    for kind, key, body in flavour:
        key = task + key[key.index("/") :] if "/" in key else task
        if kind == "workflow.admitted":
            body = {**body, "ask": ask}
        out.append((kind, key, body))
    return out


def stamp(at: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime(at / 1000))


def build(root: Path, executions: int) -> None:
    from hale_runtime.record import Record

    new_project(root)
    flavours = templates(root)
    clock = [START_MS]
    record = Record.open(root, who=HOLDER, clock=lambda: clock[0])
    declared = {
        "id": "walk", "every_ms": MINUTE * 3, "cron": "", "definition": DEFINITION,
        "args": "{}", "convener": "position:leader", "occurrence": START_MS,
    }  # fmt: skip
    record.append("schedule.declared", "walk", declared)
    started = time.perf_counter()
    for first in range(1, executions + 1, PER_COMMIT):
        rows: list = []
        for n in range(first, min(first + PER_COMMIT, executions + 1)):
            at = START_MS + n * MINUTE
            rows += execution(flavours[n % 3], n, at)
        clock[0] = START_MS + (first + PER_COMMIT) * MINUTE
        record.append_many(rows)
        if first // PER_COMMIT % 50 == 0:
            done = first + PER_COMMIT - 1
            print(
                f"  built {done:,} executions ({time.perf_counter() - started:.0f} s)", flush=True
            )
    record.close()
    print(f"  built {executions:,} executions, {record.cursor():,} rows "
          f"in {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip


# ---- one organization start, in a fresh process ---------------------------------------

CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
root, whole = Path(sys.argv[1]), sys.argv[2] == "whole"
os.environ["HALE_DNA_MEMORY"] = str(root / ".git/hale/memory.sqlite3")
os.environ["HALE_DNA_NERVES"] = str(root / ".git/hale/nerves.sqlite3")
from hale_runtime.node import checkpoint
if whole:
    checkpoint.Checkpoints.load = lambda self, record: None
from hale_runtime.node.organization import Organization
started = time.perf_counter()
org = Organization(root, root, sys.argv[3])
org.load()
took = time.perf_counter() - started
if len(sys.argv) > 4:  # write the checkpoint the start stands at
    tick = org.tickers[-1].__self__
    tick.every_rows = 1
    assert tick.tick() is not None, "no checkpoint written"
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"s": took, "rss": rss, "open": len(org.engine.state.open),
                  "cursor": org.engine.cursor}))
"""


def start(root: Path, whole: bool, write: bool = False) -> dict:
    args = [sys.executable, "-c", CHILD, str(root), "whole" if whole else "checkpoint", HOLDER]
    done = subprocess.run(args + (["write"] if write else []), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"an organization start failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare(root: Path) -> int:
    from hale_runtime.memory import open_memory

    open_memory(root / ".git" / "hale" / "memory.sqlite3").migrate()
    shutil.rmtree(root / ".git" / "hale" / "checkpoints", ignore_errors=True)
    first = start(root, whole=True, write=True)
    print(f"  one whole fold, checkpoint written at row {first['cursor']:,} "
          f"({first['s']:.1f} s)", flush=True)  # fmt: skip
    return first["cursor"]


def index_size(root: Path) -> int:
    """Bytes of the record's index, its WAL folded in first."""
    import sqlite3

    path = root / ".git" / "hale" / "record.index"
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


# ---- reads by key ----------------------------------------------------------------------


def timed(fn) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def verb(root: Path, *args: str) -> str:
    from hale_runtime.cli import hale

    cwd = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(hale, ["dna", *args])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    return result.output


def scan_show(root: Path, task: str) -> str:
    """What `show` did before the index: fold the root from a scan of every row."""
    from hale_runtime.engine.show import shown_by_scan
    from hale_runtime.record import Record

    text = shown_by_scan(Record.open(root).rows(), task)
    assert text is not None, f"no task {task} in the record"
    return text


def debugger_screen(root: Path, task: str | None) -> int:
    """The debugger's model and its first tree, as `hale dna debug [TASK]` opens."""
    from hale_runtime.cli.debug import opened_rows
    from hale_runtime.engine.budget import BudgetPolicy
    from hale_runtime.record import Record
    from hale_runtime.tui.model import DebugModel

    rows, _ = opened_rows(Record.open(root), task)
    model = DebugModel(rows, task, BudgetPolicy("day", 0))
    return len(model.tree())


# ---- the git store -------------------------------------------------------------------


def store(root: Path) -> tuple[float, float, float]:
    """(MB as written, MB after the node's maintenance, MB fully packed)."""
    from hale_runtime.memory import open_memory
    from hale_runtime.node.maintenance import Maintenance, store_size

    gitdir = root / ".git"
    written = store_size(gitdir).total
    m = Maintenance(gitdir, open_memory(gitdir / "hale" / "memory.sqlite3"), HOLDER,
                    check_s=0.0, max_s=3600.0)  # fmt: skip
    m.start()
    while m.running is not None:
        m.tick()
        time.sleep(0.2)
    maintained = store_size(gitdir).total
    subprocess.run(["git", f"--git-dir={gitdir}", "repack", "-a", "-d", "-f", "-q"], check=True)
    packed = store_size(gitdir).total
    return written / 1e6, maintained / 1e6, packed / 1e6


# ---- the run ---------------------------------------------------------------------------


def rounds(n: int, sides: dict, most: dict[str, int] | None = None) -> dict[str, list]:
    """Each side `n` times (or `most[side]`, when fewer), alternating who goes first."""
    out: dict[str, list] = {name: [] for name in sides}
    for r in range(n):
        order = list(sides.items()) if r % 2 == 0 else list(sides.items())[::-1]
        for name, fn in order:
            if r < (most or {}).get(name, n):
                out[name].append(fn())
    return out


def fmt(values: list[float], unit: str = "s") -> str:
    if unit == "MB":
        return f"{max(values) / 1e6:,.0f} MB"
    if unit == "ms":
        return f"{min(values) * 1e3:,.1f} / {statistics.median(values) * 1e3:,.1f} ms"
    return f"{min(values):,.2f} / {statistics.median(values):,.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--executions", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--whole-rounds",
        type=int,
        default=None,
        help="rounds of the whole fold's start (it takes minutes at 10^6)",
    )
    parser.add_argument("--skip-store", action="store_true", help="leave the git store as it is")
    parser.add_argument("--build-only", action="store_true", help="build the record and stop")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.gettempdir()) / f"hale-longevity-{args.executions}"
    if not (root / ".git" / "refs" / "dna").exists():
        shutil.rmtree(root, ignore_errors=True)
        print(f"building {args.executions:,} settled executions in {root}", flush=True)
        build(root, args.executions)
    if args.build_only:
        return
    rows = prepare(root)
    old = f"t{max(args.executions // 10, 1)}"

    whole_rounds = args.whole_rounds or args.rounds
    starts = rounds(args.rounds, {
        "checkpoint": lambda: start(root, whole=False),
        "whole": lambda: start(root, whole=True),
    }, {"whole": whole_rounds})  # fmt: skip
    ckpt, whole = starts["checkpoint"], starts["whole"]
    assert all(s["open"] == whole[0]["open"] for s in ckpt + whole)
    reads = rounds(args.rounds, {
        "history": lambda: timed(lambda: verb(root, "history", old)),
        "show": lambda: timed(lambda: verb(root, "show", old)),
        "debug": lambda: timed(lambda: debugger_screen(root, old)),
    })  # fmt: skip
    scans = 1 if args.executions > 100_000 else args.rounds  # a scan of 10^7 rows takes minutes
    shown: list[str] = []
    reads["show (scan)"] = [timed(lambda: shown.append(scan_show(root, old))) for _ in range(scans)]
    assert verb(root, "show", old) == shown[0]  # the index's answer is the scan's
    whole_debug = timed(lambda: debugger_screen(root, None)) if args.executions <= 100_000 else None

    n = args.executions
    print(f"\nlongevity at {n:,} settled executions (min / median of {args.rounds} rounds; "
          f"{whole_rounds} of the whole fold's start)")  # fmt: skip
    print("| figure | with the index and a checkpoint | the whole record | goal |")
    print("|---|---|---|---|")
    c_s, w_s = [s["s"] for s in ckpt], [s["s"] for s in whole]
    print(f"| organization start | {fmt(c_s)} | {fmt(w_s)} "
          f"({statistics.median(w_s) / statistics.median(c_s):,.0f}x) | < 1 s |")  # fmt: skip
    print(f"| peak RSS of that start | {fmt([s['rss'] for s in ckpt], 'MB')} | "
          f"{fmt([s['rss'] for s in whole], 'MB')} | < 200 MB |")  # fmt: skip
    print(f"| `history {old}` | {fmt(reads['history'], 'ms')} | | |")
    print(f"| `show {old}` | {fmt(reads['show'], 'ms')} | {fmt(reads['show (scan)'], 'ms')} "
          f"(a scan and fold of every row, {scans} round(s)) | < 100 ms |")  # fmt: skip
    whole_note = f"{whole_debug * 1e3:,.0f} ms (whole record)" if whole_debug else "not run"
    print(f"| debugger's first screen on `{old}` | {fmt(reads['debug'], 'ms')} | {whole_note} | |")
    size = index_size(root)
    print(f"| record.index | {size / 1e6:,.1f} MB ({size / rows:,.0f} bytes a row of "
          f"{rows:,}) | | |")  # fmt: skip
    if not args.skip_store:
        written, maintained, packed = store(root)
        print(f"| git store | {maintained:,.1f} MB after maintenance "
              f"({maintained / packed:.2f}x packed) | {written:,.1f} MB as written "
              f"({written / packed:.1f}x) | <= 1.5x of {packed:,.1f} MB packed |")  # fmt: skip


if __name__ == "__main__":
    main()
