"""`hale dna upgrade`: bring `dna/org/workflows.hl` and `vendor/dna` to the
toolchain's current shape, file by file, and say what changed.

Never touches `dna/org/own_workflows.hl` or anything else of the genome. A
project already in shape is left alone, and the verb says so. A record
made before rows were signed gets its genesis here only when the operator
names the key with `--genesis-key` (it must be the key they sign with):
whoever first runs `upgrade` does not become the root of trust by running
it. Adopting says so in one warning line (record/trust.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from hale_runtime.cli.common import fail

if TYPE_CHECKING:
    from pathlib import Path

    from hale_runtime.record import Record


@click.command("upgrade")
@click.option(
    "--genesis-key",
    metavar="FINGERPRINT",
    help="adopt a record made before signing with this key (yours) as its root of trust",
)
def upgrade(genesis_key: str | None) -> None:
    """Rewrite dna/org/workflows.hl and vendor/dna to this toolchain's shape."""
    from hale_runtime.catalog.layout import apply_plan, upgrade_plan
    from hale_runtime.cli.progress import progress
    from hale_runtime.project import find_root

    root = find_root()
    version = _version()
    with progress("upgrade"):
        changes = upgrade_plan(root)
        genesis, record = _genesis(root, genesis_key)
    if not changes:
        click.echo(f"upgrade: nothing to change; workflows.hl and vendor/dna are hale {version}'s")
        _say_genesis(genesis, record)
        return
    try:
        apply_plan(root, changes)
    except OSError as exc:
        fail(f"upgrade stopped: {exc}")
    click.echo(f"upgrade: {len(changes)} file(s) brought to hale {version}'s shape")
    for c in changes:
        click.echo(f"  {c.verb} {c.path}")
    click.echo("dna/org/own_workflows.hl is untouched; commit the change to take it to the forge")
    _say_genesis(genesis, record)


def _say_genesis(genesis: str, record: Record) -> None:
    """Say the genesis written (if any), and exit 1 when the remote does not hold it."""
    from hale_runtime.cli.organism import exit_unless_landed

    if genesis:
        click.echo(genesis)
        if record.trust.genesis:
            exit_unless_landed(record)


def _genesis(root: Path, named: str | None) -> tuple[str, Record]:
    """A record made before signing gets the key the operator `named` as its
    genesis: its unsigned rows read as before, and authority rows after it must
    be signed. Unnamed, nothing is adopted, and the line says how."""
    from hale_runtime.cli.keys import make_genesis
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.record import Record

    record = Record.open(root)
    sync_quietly(record)  # a genesis another clone made already is the one
    trust = record.trust
    if trust.genesis:
        if named is not None and named.removeprefix("key:") != trust.genesis:
            fail(f"the record's genesis is {trust.genesis} already; --genesis-key changes nothing")
        return "", record
    if named is None:
        return (
            "record: made before signing, and no root of trust is adopted; the operator "
            "adopts one with `hale dna upgrade --genesis-key <their key's fingerprint>`"
        ), record
    line = make_genesis(record, named)
    click.echo(
        f"warning: this record's earlier rows were never signed; {named} is its root of trust"
    )
    return line, record


def _version() -> str:
    from importlib import metadata

    return metadata.version("hale")
