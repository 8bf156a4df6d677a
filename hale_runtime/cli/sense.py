"""`hale dna sense TARGET KIND [--detail TEXT]`: a reflex outside reports a firing.

The firing is recorded as a `reading.taken` row in your name, from any
clone (readings/sense.py checks it first), and synced when the record has a
remote. The node whose instance TARGET names (`<app>@<holder>`, as `hale
dna dev` prints it) restarts that instance and records what it did; a
second firing for TARGET within the window becomes a concern. The verb
says where the row landed: at the remote, or in this clone only (then a
later sync carries it). Exit codes: 0 recorded, 1 refused or not written,
2 usage.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.command("sense")
@click.argument("target")
@click.argument("kind")
@click.option("--detail", default="", help="what the firing said (kept apart: redactable)")
@click.option(
    "--other",
    is_flag=True,
    help="TARGET is no instance (a service a reflex watches): record it, restart nothing",
)
def sense(target: str, kind: str, detail: str, other: bool) -> None:
    """Record a firing about TARGET (an instance, app@holder) of KIND as a reading."""
    from hale_runtime.project import find_root
    from hale_runtime.readings.sense import ReadingRefused, as_rows, reading
    from hale_runtime.record import Record, RecordError

    try:
        found = reading(target, kind, detail, "sense")
    except ReadingRefused as refused:
        fail(f"{refused}; nothing written", 2)
    root = find_root()
    record = Record.open(root)
    if not other:
        from hale_runtime.cli.organism import sync_quietly

        sync_quietly(record)  # the nodes as the remote knows them
        holders = running_nodes(record)
        _, at, holder = found.target.partition("@")
        if not at or holder not in holders:
            running = instances(root, holders)
            said = (
                f"the instances running are {', '.join(sorted(running))}"
                if running
                else "no node runs one"
            )
            fail(
                f"no node runs an instance {found.target} ({said}); nothing written "
                "(--other records a firing about something that is no instance)"
            )  # fmt: skip
    (row,) = record.append_many(as_rows(record, [found]))
    where = "in this clone (no remote)" if record.remote() is None else ""
    if not where:
        try:
            record.sync()
            landed = record.get(row.id)
            stamped = landed is not None and landed.seq <= record.stamped_count()
        except RecordError as error:
            stamped, where = False, f"in this clone only ({error}); a later sync carries it"
        where = where or ("at the remote" if stamped else "in this clone; a later sync carries it")
    click.echo(f"reading {row.id[:12]} recorded {where}: {found.target} {found.kind}")


def running_nodes(record) -> set[str]:
    """The holders of the nodes started and not stopped since, by the record."""
    from hale_runtime.node.status import node_statuses

    return {n.holder for n in node_statuses(record).values() if n.started and n.stopped is None}


def instances(root, holders: set[str]) -> set[str]:
    """The instances those nodes run, as `<app>@<holder>`, naming the application
    as this clone's dna/compose.yaml does (another clone's may name its own)."""
    from hale_runtime.node.application import ApplicationRefused, instance_of, read_spec

    try:
        spec = read_spec(root)
    except ApplicationRefused:
        spec = None
    return {instance_of(spec.name if spec else "<app>", h) for h in holders}
