"""Durable workflows, hale against DBOS on SQLite, side by side in one run.

Each figure is workflows settled per second (or seconds to recover), each
side in a fresh process of its own, sides alternating, best and median of
`--rounds` rounds, ratios over DBOS's durable default:

  - one-step workflows one at a time (start one, wait for its result);
  - one-step workflows batched: hale admits them all and pumps (one record
    commit a round); DBOS has no batch start, so `DBOS.start_workflow` each
    and wait for every handle (its thread pool runs them side by side);
  - three-step workflows, one at a time;
  - restart after SIGKILL with 1,000 in flight: a process starts them
    (hale: admitted, claimed and delivered, the outcomes not yet written;
    DBOS: started, their step blocked) and is killed; the figure is the
    seconds a new process takes from opening its stores to all settled.

Durable is each side's default: hale fsyncs (its journal, SQLite memory at
synchronous=FULL); DBOS's SQLite runs its default rollback journal with
synchronous=FULL. Relaxed: hale with HALE_DNA_DURABILITY=relaxed (unsafe);
DBOS with WAL and synchronous=NORMAL. Both are printed.

    .venv/bin/python bench/peers/workflows.py [--n 2000] [--rounds 5] [--inflight 1000]
        [--cases one,batched,three,restart]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, alternate, child, installed, table  # noqa: E402

HERE = Path(__file__).resolve()
DURABILITIES = ("durable", "relaxed")
STEP_NAMES = ("plan", "review", "settle")  # steps the organism performer takes
CASES = ("one", "batched", "three", "restart")
GOALS = {("one", "single"): 1.2}  # hale relaxed / DBOS relaxed (issue 34)


# ---- hale ----------------------------------------------------------------


def hale_catalog():
    from hale_runtime.catalog import WorkflowCatalog
    from hale_runtime.catalog.callsite import override

    host = WorkflowCatalog()
    with override("bench:1:1"):
        host.define("one", 1, "record", "one step")
        host.leaf("one", 1, 0, "plan", {"objective": "do it", "requires": "organism"}, 1)
        host.define("three", 1, "record record record", "three steps")
        for step in range(3):
            host.leaf(
                "three",
                1,
                step,
                STEP_NAMES[step],
                {"objective": "do it", "requires": "organism"},
                1,
            )
    return host.seal("bench")


def hale_engine(folder: Path):
    import pygit2

    from hale_runtime.engine import Engine
    from hale_runtime.memory import open_memory
    from hale_runtime.performers import Performers, plugin_manager
    from hale_runtime.record import Record

    if not (folder / ".git").exists():
        pygit2.init_repository(str(folder))
    memory = open_memory(folder / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    performers = Performers(plugin_manager(entry_points=False))
    return Engine(Record.open(folder, who="bench@node:00000000"), memory, performers)


def succeeded(e) -> int:
    """Executions settled `succeeded`, read from the record (settled work leaves the state)."""
    rows = e.record.rows(kind="workflow.settled")
    return sum(1 for r in rows if r.body.get("outcome") == "succeeded")


def hale_run(folder: Path, shape: str, mode: str, n: int) -> dict:
    from hale_runtime.engine import plan_of

    plan = plan_of(hale_catalog().bind(shape))
    e = hale_engine(folder)
    started = time.perf_counter()
    if mode == "batched":
        for i in range(n):
            e.admit(plan, f"ask-{i}", "bench")
        while e.state.open:
            e.pump()
    else:
        for i in range(n):
            task = e.admit(plan, f"ask-{i}", "bench").task
            while e.settled(task) is None:
                e.pump()
    elapsed = time.perf_counter() - started
    assert succeeded(e) == n
    e.record.close()
    return {"rate": n / elapsed}


def hale_start_inflight(folder: Path, n: int) -> None:
    from hale_runtime.engine import plan_of

    plan = plan_of(hale_catalog().bind("one"))
    e = hale_engine(folder)
    for i in range(n):
        e.admit(plan, f"ask-{i}", "bench")
    e.step()  # admitted, claimed (one commit) and delivered; the outcomes wait in the inbox
    print(json.dumps({"ready": True}), flush=True)
    time.sleep(3600)


def hale_recover(folder: Path, n: int) -> dict:
    started = time.perf_counter()
    e = hale_engine(folder)
    while e.state.open:
        e.pump()
    elapsed = time.perf_counter() - started
    assert succeeded(e) == n
    return {"seconds": elapsed}


# ---- DBOS ----------------------------------------------------------------


def dbos_launch(folder: Path, durability: str):
    import logging

    if durability == "relaxed":
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        @event.listens_for(Engine, "connect")
        def _wal(dbapi_conn, _record) -> None:
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            dbapi_conn.execute("PRAGMA synchronous=NORMAL")

    from dbos import DBOS

    logging.getLogger("dbos").setLevel(logging.WARNING)
    config = {
        "name": "bench",
        "system_database_url": f"sqlite:///{folder / 'dbos.sqlite'}",
        "run_admin_server": False,
        "log_level": "WARNING",
    }
    DBOS(config=config)

    @DBOS.step()
    def work(x: int) -> int:
        if os.environ.get("BENCH_BLOCK"):
            time.sleep(3600)
        return x + 1

    @DBOS.workflow()
    def one(x: int) -> int:
        return work(x)

    @DBOS.workflow()
    def three(x: int) -> int:
        return work(work(work(x)))

    DBOS.launch()
    return DBOS, {"one": one, "three": three}


def dbos_run(folder: Path, shape: str, mode: str, n: int, durability: str) -> dict:
    dbos, flows = dbos_launch(folder, durability)
    flow = flows[shape]
    started = time.perf_counter()
    if mode == "batched":
        handles = [dbos.start_workflow(flow, i) for i in range(n)]
        results = [h.get_result() for h in handles]
    else:
        results = [flow(i) for i in range(n)]
    elapsed = time.perf_counter() - started
    assert len(results) == n
    dbos.destroy()
    return {"rate": n / elapsed}


def dbos_start_inflight(folder: Path, n: int, durability: str) -> None:
    dbos, flows = dbos_launch(folder, durability)
    for i in range(n):
        dbos.start_workflow(flows["one"], i)
    print(json.dumps({"ready": True}), flush=True)
    time.sleep(3600)


def dbos_recover(folder: Path, n: int, durability: str) -> dict:
    import sqlite3

    started = time.perf_counter()
    dbos, _ = dbos_launch(folder, durability)  # launching recovers this executor's workflows
    db = sqlite3.connect(folder / "dbos.sqlite", timeout=60)
    while True:
        (done,) = db.execute(
            "SELECT count(*) FROM workflow_status WHERE status = 'SUCCESS'"
        ).fetchone()
        if done >= n:
            break
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    dbos.destroy()
    return {"seconds": elapsed}


# ---- the parent ----------------------------------------------------------


def env_for(durability: str, block: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HALE_DNA_DURABILITY", "BENCH_BLOCK")}
    if durability == "relaxed":
        env["HALE_DNA_DURABILITY"] = "relaxed"
    if block:
        env["BENCH_BLOCK"] = "1"
    return env


def run_side(tmp: Path, side: str, shape: str, mode: str, n: int, durability: str) -> float:
    folder = Path(tempfile.mkdtemp(dir=tmp))
    args = ["--child", "run", "--side", side, "--shape", shape, "--mode", mode]
    args += ["--n", str(n), "--dir", str(folder), "--durability", durability]
    return child(HERE, args, env_for(durability))["rate"]


def restart_side(tmp: Path, side: str, n: int, durability: str) -> float:
    folder = Path(tempfile.mkdtemp(dir=tmp))
    common = ["--side", side, "--n", str(n), "--dir", str(folder), "--durability", durability]
    starter = subprocess.Popen(
        [sys.executable, str(HERE), "--child", "start", *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env_for(durability, block=True),
    )
    line = starter.stdout.readline() if starter.stdout else ""
    starter.send_signal(signal.SIGKILL)
    starter.wait()
    if '"ready"' not in line:
        raise RuntimeError(f"{side} never had {n} in flight:\n{starter.stderr.read()[-3000:]}")
    return child(HERE, ["--child", "recover", *common], env_for(durability))["seconds"]


def compare(tmp: Path, args: argparse.Namespace, dbos: bool) -> None:
    cases = {
        "one": ("one-step, one at a time", "one", "single", args.n),
        "batched": ("one-step, batched", "one", "batched", args.n),
        "three": ("3-step, one at a time", "three", "single", args.n // 2),
    }
    for title, shape, mode, n in (cases[c] for c in args.cases if c in cases):
        sides = {}
        for d in DURABILITIES:
            for side in ("hale", "dbos") if dbos else ("hale",):
                name = f"{'DBOS' if side == 'dbos' else 'hale'}, {d}"
                sides[name] = lambda _r, c=(side, shape, mode, n, d): run_side(tmp, *c)
        base = "DBOS, durable" if dbos else "hale, durable"
        figures = alternate(sides, args.rounds)
        table(f"{title}: {n:,} workflows, workflows/s", figures, "/s", base, True)
        goal = GOALS.get((shape, mode))
        if goal and dbos:
            ratio = median(figures["hale, relaxed"]) / median(figures["DBOS, relaxed"])
            verdict = "met" if ratio >= goal else "not met"
            print(f"  hale relaxed / DBOS relaxed: {ratio:.2f}   goal >= {goal}: {verdict}")
    if "restart" not in args.cases:
        return
    sides = {}
    for d in DURABILITIES:
        sides[f"hale, {d}"] = lambda _r, d=d: restart_side(tmp, "hale", args.inflight, d)
        if dbos:
            sides[f"DBOS, {d}"] = lambda _r, d=d: restart_side(tmp, "dbos", args.inflight, d)
    figures = alternate(sides, args.rounds)
    base = "DBOS, durable" if dbos else "hale, durable"
    title = f"restart after SIGKILL with {args.inflight:,} in flight: seconds to all settled"
    table(title, figures, "s", base, False)


def run_child(args: argparse.Namespace) -> None:
    folder = Path(args.dir)
    hale = args.side == "hale"
    if args.child == "run":
        result = (
            hale_run(folder, args.shape, args.mode, args.n)
            if hale
            else dbos_run(folder, args.shape, args.mode, args.n, args.durability)
        )
    elif args.child == "start":
        if hale:
            hale_start_inflight(folder, args.n)
        else:
            dbos_start_inflight(folder, args.n, args.durability)
        return
    else:
        result = (
            hale_recover(folder, args.n) if hale else dbos_recover(folder, args.n, args.durability)
        )
    print(json.dumps(result), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="workflows a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--inflight", type=int, default=1000)
    parser.add_argument(
        "--cases",
        type=lambda text: text.split(","),
        default=list(CASES),
        help=f"which cases, comma-separated (default: all of {','.join(CASES)})",
    )
    parser.add_argument("--child", choices=("run", "start", "recover"))
    parser.add_argument("--side", choices=("hale", "dbos"))
    parser.add_argument("--shape", choices=("one", "three"), default="one")
    parser.add_argument("--mode", choices=("single", "batched"), default="single")
    parser.add_argument("--dir")
    parser.add_argument("--durability", choices=DURABILITIES, default="durable")
    args = parser.parse_args()
    if args.child:
        run_child(args)
        return
    print("workflows: hale against DBOS on SQLite")
    dbos = installed("dbos", "DBOS")
    with tempfile.TemporaryDirectory(prefix="hale-bench-workflows-") as tmp:
        compare(Path(tmp), args, dbos)


if __name__ == "__main__":
    main()
