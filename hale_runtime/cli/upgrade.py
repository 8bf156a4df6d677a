"""`hale dna upgrade`: bring `dna/org/workflows.hl` and `vendor/dna` to the
toolchain's current shape, file by file, and say what changed.

Never touches `dna/org/own_workflows.hl` or anything else of the genome. A
project already in shape is left alone, and the verb says so. A record
made before rows were signed gets its genesis here: the current user's key
(record/trust.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from hale_runtime.cli.common import fail

if TYPE_CHECKING:
    from pathlib import Path

    from hale_runtime.record import Record


@click.command("upgrade")
def upgrade() -> None:
    """Rewrite dna/org/workflows.hl and vendor/dna to this toolchain's shape."""
    from hale_runtime.catalog.genome import apply_plan, upgrade_plan
    from hale_runtime.cli.progress import progress
    from hale_runtime.project import find_root

    root = find_root()
    version = _version()
    with progress("upgrade"):
        changes = upgrade_plan(root)
        genesis, record = _genesis(root)
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
        exit_unless_landed(record)


def _genesis(root: Path) -> tuple[str, Record]:
    """A record made before signing gets this user's key as its genesis: its
    unsigned rows read as before, and authority rows after it must be signed."""
    from hale_runtime.cli.keys import make_genesis
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.record import Record

    record = Record.open(root)
    sync_quietly(record)  # a genesis another clone made already is the one
    return make_genesis(record), record


def _version() -> str:
    from importlib import metadata

    return metadata.version("hale")
