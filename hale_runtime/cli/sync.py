"""`hale dna sync`: exchange this clone's record with its remote now.

The same sync every verb that writes and every node's tick run
(record/sync.py): rows both ways, receipts, protected bodies, and the
erasure of every protected body a redaction names. Exit 0 synced (or no
remote), 1 when the remote could not be reached or refused.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import fail


@click.command("sync")
def sync() -> None:
    """Sync the record with its remote (rows, receipts, protected bodies, redactions)."""
    from hale_runtime.node.syncing import sync as locked_sync
    from hale_runtime.project import find_root
    from hale_runtime.record import Record, RecordError

    record = Record.open(find_root())
    if record.remote() is None:
        click.echo("sync: this record has no remote; every row is stamped")
        return
    from hale_runtime.cli.progress import progress

    try:
        with progress("sync"):
            report = locked_sync(record)
    except RecordError as error:
        fail(str(error))
    click.echo(f"sync: {report.remote}: sent {report.sent} row(s), received {report.received}")
