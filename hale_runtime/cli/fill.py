"""`hale dna fill <position> <holder>`: who holds a position, as a row.

Writes `position.filled`; the node projects it into memory's graph. Only
the Board's holder fills a position (or the record's genesis while the
Board is unheld: record/trust.py), and the verb is judged before it
writes, so a refused fill writes nothing. Memory is never written ahead of
the record: what holds a position is what the record says.

Filling the Board hands over the authority to fill, to decide Reviews and
to bind keys, so the Board is filled only with an identity the record
binds an endorsed key to: otherwise nobody could prove they hold it.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.command("fill")
@click.argument("position")
@click.argument("holder")
def fill(position: str, holder: str) -> None:
    """Name HOLDER (a person, or an organization's members) as POSITION's holder."""
    from hale_runtime.cli.organism import exit_unless_landed, sync_quietly
    from hale_runtime.project import find_root
    from hale_runtime.record import Record
    from hale_runtime.record.kinds import POSITION_FILLED
    from hale_runtime.record.trust import BOARD, identity

    name = position.removeprefix("position:")
    if not name or ":" in name or " " in name:
        fail(f"a position is a name, and `{position}` is not", 2)
    record = Record.open(find_root())
    sync_quietly(record)  # judged against the chain as the remote has it
    key, body = f"position:{name}", {"position": name, "holder": holder}
    why = record.judge(POSITION_FILLED, key, body)
    if why:
        fail(f"fill {key}: {why}")
    trust = record.trust
    endorsed = [k for _, k in trust.keys_of(identity(holder)) if k.endorsed]
    if name == BOARD and trust.genesis and not endorsed:
        fail(
            f"fill {key}: refused: {identity(holder)} has no key the Board registered, so could not "
            f"prove it holds the Board; `hale dna key register {identity(holder)} <public key>` first"
        )
    record.append(POSITION_FILLED, key, body)
    click.echo(f"{key} is held by {holder} (position.filled)")
    exit_unless_landed(record)
