"""`hale dna fill <position> <holder>`: who holds a position, as a row.

Writes `position.filled` (the node projects it into memory's graph) and,
when this project's memory exists, sets the holder there at once, so a
verb or a node reading the graph sees it without waiting for a projection.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.command("fill")
@click.argument("position")
@click.argument("holder")
def fill(position: str, holder: str) -> None:
    """Name HOLDER (a person, or an organization's members) as POSITION's holder."""
    from hale_runtime.cli.organism import project_memory, sync_quietly
    from hale_runtime.project import find_root
    from hale_runtime.record import Record
    from hale_runtime.record.kinds import POSITION_FILLED

    name = position.removeprefix("position:")
    if not name or ":" in name or " " in name:
        fail(f"a position is a name, and `{position}` is not", 2)
    root = find_root()
    record = Record.open(root)
    record.append(POSITION_FILLED, f"position:{name}", {"position": name, "holder": holder})
    memory = project_memory(root)
    if memory is not None:
        memory.set_holder(name, holder)
        memory.close()
    sync_quietly(record)
    click.echo(f"position:{name} is held by {holder} (position.filled)")
