"""`hale dna memory`: memory's schema, and which databases are in use.

`migrate` finds the project, resolves the memory DSN (`HALE_DNA_MEMORY`, else
the embedded file under `.git/hale/`) and the nerves DSN (`HALE_DNA_NERVES`,
else the memory database), migrates each database once, and prints one line
for each: `memory: <dsn>` and `nerves: <dsn>`, passwords hidden.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.group()
def memory() -> None:
    """Memory: claims, the projected graph, the projection cursor."""


@memory.command()
def migrate() -> None:
    """Create or upgrade memory's schema and print the DSNs in use."""
    from hale_runtime.memory import MemoryFailed, memory_dsn, nerves_dsn, open_memory
    from hale_runtime.memory.dsn import redact
    from hale_runtime.project import find_root

    root = find_root()
    dsns = {"memory": memory_dsn(root), "nerves": nerves_dsn(root)}
    try:
        for dsn in dict.fromkeys(dsns.values()):
            with open_memory(dsn) as store:
                store.migrate()
    except MemoryFailed as error:
        fail(" ".join(str(error).split()))
    for role, dsn in dsns.items():
        click.echo(f"{role}: {redact(dsn)}")
