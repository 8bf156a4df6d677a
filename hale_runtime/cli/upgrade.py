"""`hale dna upgrade`: bring `dna/org/workflows.hl` and `vendor/dna` to the
toolchain's current shape, file by file, and say what changed.

Never touches `dna/org/own_workflows.hl` or anything else of the genome. A
project already in shape is left alone, and the verb says so. A record
made before rows were signed gets its genesis here: the current user's key
(record/trust.py).
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.command("upgrade")
def upgrade() -> None:
    """Rewrite dna/org/workflows.hl and vendor/dna to this toolchain's shape."""
    from hale_runtime.catalog.genome import apply_plan, upgrade_plan
    from hale_runtime.project import find_root

    root = find_root()
    version = _version()
    changes = upgrade_plan(root)
    genesis = _genesis(root)
    if not changes:
        click.echo(f"upgrade: nothing to change; workflows.hl and vendor/dna are hale {version}'s")
        if genesis:
            click.echo(genesis)
        return
    try:
        apply_plan(root, changes)
    except OSError as exc:
        fail(f"upgrade stopped: {exc}")
    click.echo(f"upgrade: {len(changes)} file(s) brought to hale {version}'s shape")
    for c in changes:
        click.echo(f"  {c.verb} {c.path}")
    click.echo("dna/org/own_workflows.hl is untouched; commit the change to take it to the forge")
    if genesis:
        click.echo(genesis)


def _genesis(root) -> str:
    """A record made before signing gets this user's key as its genesis: its
    unsigned rows read as before, and authority rows after it must be signed."""
    from hale_runtime.cli.keys import make_genesis
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.record import Record

    record = Record.open(root)
    sync_quietly(record)  # a genesis another clone made already is the one
    line = make_genesis(record)
    if line:
        sync_quietly(record)
    return line


def _version() -> str:
    from importlib import metadata

    return metadata.version("hale")
