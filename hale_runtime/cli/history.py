"""`hale dna history`: the record's rows, one a line, read from this clone alone.

Plain output is `<kind> <key> <body>` with the body as compact JSON the way the
seeds print rows; `--json` prints each row as one JSON object a line, with its
place (`seq`), id, writer, time and whether the remote holds it (`stamped`).

KEY-PREFIX matches whole segments of a key, so `t1` selects the task t1 and
everything under it (`t1/wf1/s0`, `t1.s0.b`) but not `t10`. A prefix that
ends with a separator (`plan/`, `k:`) matches as written.
"""

from __future__ import annotations

import json

import click

from hale_runtime.project import find_root

SEPARATORS = "/.:@"  # what separates the segments of a key


@click.command("history")
@click.argument("key_prefix", required=False, default="")
@click.option("--kind", help="only rows of this kind (e.g. claim.taken)")
@click.option("--since", type=click.IntRange(min=0), default=0, help="only rows after this seq")
@click.option("--stamped", is_flag=True, help="only rows the remote holds")
@click.option("--json", "as_json", is_flag=True, help="one JSON object a line")
def history(key_prefix: str, kind: str | None, since: int, stamped: bool, as_json: bool) -> None:
    """Print the record's rows, optionally those whose key starts with KEY_PREFIX."""
    from hale_runtime.record import Record

    record = Record.open(find_root())
    # the record as it stands: rows that do not fit their kind too (they are quarantined)
    rows = list(record.scan(since, kind, _ranges(key_prefix), stamped_only=stamped, poison=True))
    held = record.stamped_count()
    for row in rows:
        if as_json:
            click.echo(
                json.dumps({**row.as_json(), "stamped": row.seq <= held}, ensure_ascii=False)
            )
        else:
            click.echo(f"{row.kind} {row.key} {json.dumps(row.body, ensure_ascii=False)}")


def _ranges(prefix: str) -> list[tuple[str, str | None]]:
    """The key ranges (for the record's index) of the prefix itself and what
    lies below it, segment-wise; a prefix ending in a separator as written."""
    from hale_runtime.record.index import key_ranges, prefix_range

    if not prefix:
        return []
    if prefix[-1] in SEPARATORS:
        return [prefix_range(prefix)]
    return key_ranges(prefix, SEPARATORS)
