"""`hale dna run`, `dev`, `status` and `body`: running a node, and seeing who does.

`run` starts a host (hale_runtime/node/host.py) with memory and nerves from
the environment; `dev` first brings them up: with a working container engine
(`docker compose` and a daemon that answers) from `dna/compose.yaml`,
otherwise embedded (the project's SQLite file), migrated either way. `status`
and `body` read the record, memory and the lease and need no node running.
Every failure is one `hale: …` line and an exit code: 0 ok, 1 refused, 2
usage, 3 the body lease is held elsewhere, 75 the genome moved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import click

from hale_runtime.cli.common import EXIT_LEASE_HELD, fail, json_option, offline_option
from hale_runtime.cli.organism import exit_unless_landed, fetch_unless_offline
from hale_runtime.record import kinds

COMPOSE_DSN = "postgresql://postgres:hale@127.0.0.1:5432/dna"


def _root() -> Path:
    from hale_runtime.project import find_root

    return find_root()


def _settings():
    from hale_runtime.node.settings import Settings

    return Settings.from_env()  # a SettingsError is the group's to say, exit 2


def _host(root: Path, application=None) -> int:
    from hale_runtime.head.node import start_head
    from hale_runtime.memory import memory_dsn, nerves_dsn
    from hale_runtime.node.host import Host
    from hale_runtime.record import RecordError
    from hale_runtime.record.errors import RowRefused

    settings = _settings()
    try:
        dsns = memory_dsn(root), nerves_dsn(root)
        host = Host(
            root, settings, *dsns, say=click.echo, application=application, start_head=start_head
        )
        return host.run()
    except RecordError as error:
        fail(str(error))
    except RowRefused as refused:  # its key proves no writer the record allows (docs/authority.md)
        fail(
            f"the node's rows are refused: {refused}; the Board binds this node's key to the "
            "name it writes as (`hale dna key register <name> <public key>`)"
        )
    except Exception as error:  # never a traceback: one line, exit 1
        fail(f"the node failed: {type(error).__name__}: {error}")


@click.command("run")
def run() -> None:
    """Run a node: take the body lease, start the fence and the organization, tick."""
    raise SystemExit(_host(_root()))


@click.command("dev")
def dev() -> None:
    """Run a node with memory and nerves brought up for you (embedded without containers),
    and the application dna/compose.yaml names under the same host."""
    from hale_runtime.memory import ENV_MEMORY, ENV_NERVES, MemoryFailed, memory_dsn, open_memory
    from hale_runtime.memory.dsn import redact
    from hale_runtime.node.application import ApplicationRefused, read_spec

    root = _root()
    try:
        application = read_spec(root)  # refused before anything is brought up or taken
    except ApplicationRefused as refused:
        fail(str(refused))
    how = "from the environment"
    if not os.environ.get(ENV_MEMORY):
        why = _compose_up(root)
        how = f"embedded: no container engine answered ({why})"
        if not why:
            os.environ[ENV_MEMORY], how = COMPOSE_DSN, "from dna/compose.yaml"
    os.environ.setdefault(ENV_NERVES, memory_dsn(root))
    try:
        for dsn in dict.fromkeys([memory_dsn(root), os.environ[ENV_NERVES]]):
            with open_memory(dsn) as store:
                store.migrate()
    except MemoryFailed as error:
        fail(f"memory could not be brought up: {error}")
    click.echo(f"dev: memory and nerves at {redact(memory_dsn(root))} ({how})")
    if os.environ.get("HALE_DNA_FACE", "1") != "0":  # the face beside the node
        from hale_runtime.cli.face import serve_face

        click.echo(f"face: {serve_face(root).url}")
    raise SystemExit(_host(root, application))


def _compose_up(root: Path) -> str:
    """Bring up dna/compose.yaml when a container engine answers: "" when it did,
    else why not, in a few words for the one line `dev` prints."""
    compose = root / "dna" / "compose.yaml"
    if not compose.is_file():
        return "the project has no dna/compose.yaml"
    if shutil.which("docker") is None:
        return "no docker client on PATH"
    try:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=5).returncode != 0:
            return "docker info: no daemon answered"
        up = ["docker", "compose", "-f", str(compose), "up", "-d", "--wait"]
        done = subprocess.run(up, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"docker: {type(error).__name__}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"docker compose up failed: {last[:120]}"
    return ""


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="one JSON document")
@offline_option
def status(as_json: bool, offline: bool) -> None:
    """Say what each node runs: its genome, lease, last tick, memory and nerves."""
    from hale_runtime.node.status import gather, render
    from hale_runtime.record import Record

    root = _root()
    fetch_unless_offline(Record.open(root), offline)
    found = gather(root, _settings().git_timeout_s)
    if as_json:
        click.echo(json.dumps(found.as_json(), indent=2))
        return
    for line in render(found):
        click.echo(line)


@click.group("body", invoke_without_command=True)
@json_option
@click.pass_context
def body(ctx: click.Context, as_json: bool) -> None:
    """Who runs this record's body (the body lease; this owner's, with HALE_DNA_OWNER)."""
    if ctx.invoked_subcommand is not None:
        return
    from hale_runtime.node.lease import OWNER_ENV
    from hale_runtime.node.status import read_lease
    from hale_runtime.record import Record

    root = _root()
    owner = os.environ.get(OWNER_ENV) or None
    lease, where = read_lease(root, Record.open(root), _settings().git_timeout_s, owner)
    if as_json:
        from hale_runtime.cli.documents import lease_json
        from hale_runtime.cli.shapes import emit

        emit({"lease": lease_json(lease), "where": where})
        return
    click.echo(f"body: {lease.describe() if lease else 'nobody holds the lease'} ({where})")


def _lease(root: Path):
    from hale_runtime.node.lease import OWNER_ENV, BodyLease
    from hale_runtime.record import Record
    from hale_runtime.record.identity import NODE_ENV, default_who

    record = Record.open(root)
    holder = os.environ.get(NODE_ENV) or default_who(record.clone)
    settings = _settings()
    owner = os.environ.get(OWNER_ENV) or None
    lease = BodyLease(
        root, holder, record.remote(), settings.lease_s, settings.git_timeout_s, owner
    )
    return record, lease


@body.command("claim")
@click.option("--force", is_flag=True, help="take it even from a live holder")
def claim(force: bool) -> None:
    """Take the body lease; with --force from a body that is gone, as a row in your name."""
    from hale_runtime.node.lease import OWNER_ENV, LeaseHeld

    root = _root()
    try:
        record, lease = _lease(root)
        owner = {"owner": os.environ[OWNER_ENV]} if os.environ.get(OWNER_ENV) else {}
        if force:  # a forced take is the owner's, proven by key: judged before the lease moves
            why = record.judge(kinds.BODY_CLAIMED, "body", {"forced": True, **owner})
            if why:
                fail(f"body claim --force: {why}")
        _, before = lease.read()
        taken = lease.take(force=force)
        row = {"holder": taken.holder, "token": taken.token, "until": taken.until}
        row["from"] = before.holder if before else None
        row["forced"] = force
        record.append(kinds.BODY_CLAIMED, "body", {**row, **owner})
    except LeaseHeld as held:
        fail(
            f"{held}; `hale dna body claim --force` takes it from a body that is gone",
            EXIT_LEASE_HELD,
        )
    click.echo(f"body: {taken.describe()}")
    exit_unless_landed(record)


@body.command("release")
def release() -> None:
    """Give the body lease back."""
    from hale_runtime.node.lease import Lease

    root = _root()
    record, lease = _lease(root)  # an unprovable lease or a failed record: the group's line
    _, current = lease.read()
    if current is None or current.released:
        click.echo("body: nobody holds the lease")
        return
    if current.holder != lease.holder:
        fail(f"the body lease is {current.describe()}, not yours", EXIT_LEASE_HELD)
    lease.lease = Lease(current.holder, current.token, current.until)
    if not lease.release():
        fail("the body lease moved while it was being given back")
    record.append(kinds.BODY_RELEASED, "body", {"holder": lease.holder, "token": current.token})
    click.echo(f"body: released by {lease.holder}")
    exit_unless_landed(record)


@body.command("provision")
@click.argument("host", required=False)
@click.option("--note", default="", help="what was set up, for whoever reads the record")
@json_option
def provision(host: str | None, note: str, as_json: bool) -> None:
    """Record that you provisioned HOST for a body (without HOST: the hosts provisioned)."""
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.node import provision as hosts
    from hale_runtime.node.lease import OWNER_ENV
    from hale_runtime.record import Record

    record = Record.open(_root())
    sync_quietly(record)
    if host is None and as_json:
        from hale_runtime.cli.shapes import emit

        emit({"hosts": [
            {"host": h, "address": str(row.body.get("address", "")), "owner": row.body.get("owner") or None,
             "by": str(row.body.get("by", row.who)), "at": row.at}
            for h, row in hosts.hosts(record).items()
        ]})  # fmt: skip
        return
    if as_json:
        fail("--json lists the hosts: `hale dna body provision --json`", 2)
    if host is None:
        for line in _host_lines(hosts.hosts(record)):
            click.echo(line)
        return
    why = hosts.check_name(host)
    if why:
        fail(why, 2)
    try:
        address = hosts.resolve(host)
    except OSError as error:
        fail(f"host {host} does not resolve from here ({error}); provision it first")
    done = hosts.provision(record, host, address, os.environ.get(OWNER_ENV) or None, note)
    if done.row is None:
        click.echo(f"host {host} is provisioned already, at {address} (nothing written)")
        return
    click.echo(
        f"host {host} provisioned at {address} by {record.who} (body.provisioned host:{host})"
    )
    exit_unless_landed(record)


def _host_lines(found: dict) -> list[str]:
    import time

    if not found:
        return ["hosts: none provisioned (`hale dna body provision HOST` records one)"]
    lines = [f"hosts: {len(found)} provisioned"]
    for host, row in found.items():
        when = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(row.at / 1000))
        owner = f", owner {row.body['owner']}" if row.body.get("owner") else ""
        lines.append(
            f"  {host} at {row.body.get('address', '')}{owner}: by {row.body.get('by', row.who)}, {when}"
        )
    return lines
