"""Bodies of one shared record: two owners' nodes over one bare remote and one
PostgreSQL, each admitting its own owner's asks at the same time. Nothing is
admitted twice: every task id is one execution, every intent one answer, and
the organizations keep admitting work."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from node_helpers import FAST, HALE, clone, hale, make_dna_forge
from pg import fresh_database, shared_postgres  # noqa: E402

from hale_runtime.record import Record  # noqa: E402

ANSWER_WAIT = {"HALE_DNA_ANSWER_WAIT": "60"}


@pytest.fixture
def dna_forge(tmp_path: Path) -> tuple[Path, Path]:
    return make_dna_forge(tmp_path)


@pytest.fixture
def pg_memory(dna_forge) -> str:
    dsn = fresh_database(shared_postgres())
    migrated = hale(dna_forge[1], "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": dsn})
    assert migrated.returncode == 0, migrated.stderr
    return dsn


def owner_env(dsn: str, owner: str) -> dict[str, str]:
    return {"HALE_DNA_MEMORY": dsn, "HALE_DNA_OWNER": owner, **ANSWER_WAIT}


def ask_at_once(asks: list[tuple[Path, dict[str, str], list[str]]]) -> list[str]:
    """Run every `hale dna task create` at the same time; their outputs (each must exit 0)."""
    procs = [
        subprocess.Popen(
            [*HALE, "dna", "task", "create", *argv],
            cwd=cwd,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **FAST, **env},
        )
        for cwd, env, argv in asks
    ]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, out + err
        outs.append(out)
    return outs


def fresh_rows(forge: Path, tmp: Path) -> Record:
    record = Record.open(clone(forge, tmp / f"fresh{len(list(tmp.iterdir()))}"))
    record.sync()
    return record


def test_two_owners_asking_at_once_never_share_a_task_id(dna_forge, tmp_path, nodes, pg_memory):
    forge = dna_forge[0]
    sides = {o: clone(forge, tmp_path / o) for o in ("alpha", "beta")}
    running = [nodes(cwd, "run", owner_env(pg_memory, o)) for o, cwd in sides.items()]
    for node in running:
        node.wait_running()
    asks = [
        (cwd, owner_env(pg_memory, o), [f"{o} change {n}"] + (["--judgment"] if n % 2 else []))
        for n in range(4)
        for o, cwd in sides.items()
    ]
    born = ask_at_once(asks)
    record = fresh_rows(forge, tmp_path)
    roots = [r for r in record.rows(kind="workflow.admitted") if "plan" in r.body]
    assert len(roots) == len(asks), [f"{r.key} {r.body['ask']}" for r in roots]
    assert max(Counter(r.key for r in roots).values()) == 1
    offered = Counter(r.key for r in record.rows(kind="intent.offered"))
    assert len(offered) == len(asks) and max(offered.values()) == 1
    for line, (_, env, _) in zip(born, asks, strict=True):
        task = line.split()[1]
        shown = hale(record.repo.workdir, "dna", "show", task)
        assert shown.returncode == 0 and shown.stdout.startswith(task), shown.stderr
        assert f" (owner {env['HALE_DNA_OWNER']})\n" in shown.stdout, shown.stdout  # which body
    # and the organism still admits work on both sides, at once
    edit, judge = ask_at_once(
        [(sides["alpha"], owner_env(pg_memory, "alpha"), ["one more edit"]),
         (sides["beta"], owner_env(pg_memory, "beta"), ["one more judgment", "--judgment"])]
    )  # fmt: skip
    assert " ask-edit@1 " in edit and " ask-judge@1 " in judge
    for node in running:
        assert node.proc.poll() is None, node.log()
        assert "organization stopped" not in node.log()
        assert node.stop() == 0, node.log()


def test_a_body_without_an_owner_never_runs_beside_owners_bodies(dna_forge, tmp_path, nodes,
                                                                  pg_memory):  # fmt: skip
    forge = dna_forge[0]
    alpha = nodes(clone(forge, tmp_path / "alpha"), "run", owner_env(pg_memory, "alpha"))
    alpha.wait_running()
    lone_env = {"HALE_DNA_MEMORY": pg_memory, **ANSWER_WAIT}
    lone = clone(forge, tmp_path / "lone")
    refused = nodes(lone, "run", lone_env)
    assert refused.wait() == 3, refused.log()
    assert "owners' bodies share this record" in refused.log()
    assert "set HALE_DNA_OWNER" in refused.log()
    # the judgment ask is offered once, by the owner's body alone
    (judged,) = ask_at_once([(lone, owner_env(pg_memory, "alpha"), ["judge it", "--judgment"])])
    assert " ask-judge@1 " in judged
    record = fresh_rows(forge, tmp_path)
    assert len(record.rows(kind="intent.offered")) == 1
    assert not [r for r in record.rows(kind="node.started") if r.body.get("owner") is None]
    # the other way round: an owner's body beside a body without an owner
    assert alpha.stop() == 0, alpha.log()
    single = nodes(lone, "run", lone_env)
    single.wait_running()
    beta = nodes(clone(forge, tmp_path / "beta"), "run", owner_env(pg_memory, "beta"))
    assert beta.wait() == 3, beta.log()
    assert "a body without an owner runs this record" in beta.log()
    (asked,) = ask_at_once([(lone, lone_env, ["one more judgment", "--judgment"])])
    assert " ask-judge@1 " in asked  # the organism still admits work
    assert single.stop() == 0, single.log()
