"""`hale dna history`: the record's rows, one a line, read from this clone alone.

Plain output is `<kind> <key> <body>` with the body as compact JSON the way the
seeds print rows; `--json` prints each row as one JSON object a line, with its
place (`seq`), id, writer, time and whether the remote holds it (`stamped`).

A row that names a protected body (`"protected": <digest>`) is followed by
it (` protected: {…}`), by `[redacted]` once a redaction of it stands, or by
`(not in this clone)`. `--kind` names one kind, or a family when it ends in a dot (`reading.`:
`reading.taken` and `reading.acted`). KEY-PREFIX matches whole segments of a key, so `t1` selects the task t1 and
everything under it (`t1/wf1/s0`, `t1.s0.b`) but not `t10`. A prefix that
ends with a separator (`plan/`, `k:`) matches as written.
"""

from __future__ import annotations

import json

import click

from hale_runtime.cli.common import offline_option
from hale_runtime.project import find_root
from hale_runtime.record.bounds import printed

SEPARATORS = "/.:@"  # what separates the segments of a key


@click.command("history")
@click.argument("key_prefix", required=False, default="")
@click.option(
    "--kind", help="only rows of this kind (claim.taken), or of kinds it starts (reading.)"
)
@click.option("--since", type=click.IntRange(min=0), default=0, help="only rows after this seq")
@click.option("--stamped", is_flag=True, help="only rows the remote holds")
@click.option("--json", "as_json", is_flag=True, help="one JSON object a line")
@click.option("--verify", is_flag=True, help="each row's signer, and whether it verifies")
@offline_option
def history(
    key_prefix: str,
    kind: str | None,
    since: int,
    stamped: bool,
    as_json: bool,
    verify: bool,
    offline: bool,
) -> None:
    """Print the record's rows, optionally those whose key starts with KEY_PREFIX."""
    from hale_runtime.cli.organism import fetch_unless_offline
    from hale_runtime.record import Record

    record = Record.open(find_root())
    fetch_unless_offline(record, offline)
    kinds: str | list[str] | None = kind
    if kind and kind.endswith("."):  # a family of kinds: `reading.` is reading.taken, …
        kinds = sorted(k for k in record.kinds() if k.startswith(kind))
        if not kinds:
            return
    ranges = _ranges(key_prefix)
    if verify:
        rows = _verified(record, since, kinds, ranges, stamped)
    else:  # the record as it stands: rows that do not fit their kind too (they are quarantined)
        scan = record.scan(since, kinds, ranges, stamped_only=stamped, poison=True)
        rows = [(row, None) for row in scan]
    held = record.stamped_count()
    kept_bodies = Protected(record)
    for row, proof in rows:
        shown = {**row.as_json(), "stamped": row.seq <= held}
        kept = kept_bodies.of(row)
        said = ""
        if kept is not None:
            shown["protected_body"] = kept
            said = " protected: " + (kept if isinstance(kept, str) else _json(kept))
        if proof is not None:
            facts = _proof_facts(record, row, proof)
            shown.update(facts)
            said += f" — {_said(facts)}"
        if as_json:
            click.echo(json.dumps(shown, ensure_ascii=False))
        else:
            body = json.dumps(row.body, ensure_ascii=False)
            click.echo(printed(f"{row.kind} {row.key} {body}{said}"))  # no key forges a line


def _verified(record, since: int, kinds: str | list[str] | None, ranges, stamped: bool) -> list:
    """(row, what its signature proves) of the rows asked for: the whole chain
    is read with its signature rows, then filtered, since a signature row
    may lie outside what is asked."""
    from hale_runtime.record.signing import attribute

    wanted = None if kinds is None else {kinds} if isinstance(kinds, str) else set(kinds)
    trust = record.trust
    genesis = record.get(trust.record) if trust.record else None
    end = record.cursor(stamped_only=stamped)
    every = record.scan(0, poison=True, signatures=True, until=end)
    out = []
    for row, proof in attribute(every, trust.record, genesis.seq if genesis else 0):
        inside = not ranges or any(
            lo <= row.key and (hi is None or row.key < hi) for lo, hi in ranges
        )
        if row.seq > since and (wanted is None or row.kind in wanted) and inside:
            out.append((row, proof))
    return out


def _proof_facts(record, row, proof) -> dict:
    from hale_runtime.record.trust import identity

    key = record.trust.keys.get(proof.fingerprint or proof.claimed)
    refusal = record.poison_of(row)
    return {
        "signer": proof.fingerprint or proof.claimed or None,
        "identity": key.identity if key is not None else None,
        "verifies": bool(proof.fingerprint),
        "why": "" if proof.fingerprint else proof.why,
        "bound": bool(key is not None and not key.revoked and key.identity == identity(row.who)),
        "refused": refusal.removeprefix("refused: ") if refusal.startswith("refused: ") else "",
    }


def _said(facts: dict) -> str:
    """`signed by alice SHA256:…: verifies`, `unsigned`, … and any refusal."""
    if facts["signer"] is None:
        said = "unsigned"
    else:
        who = f"{facts['identity']} " if facts["identity"] else ""
        said = f"signed by {who}{facts['signer']}: "
        said += "verifies" if facts["verifies"] else facts["why"].removeprefix("is ")
        if facts["verifies"] and not facts["bound"]:
            said += ", by a key the record does not bind to its writer"
    if facts["refused"]:
        said += f"; refused: {facts['refused']}"
    return said


class Protected:
    """A row's protected body as history shows it: the body, `[redacted]` once a
    redaction stands, or `(not in this clone)` before a sync brings it."""

    def __init__(self, record) -> None:
        self.record = record
        self.gone: set[str] | None = None

    def of(self, row) -> dict | str | None:
        from hale_runtime.record import protected

        digest = row.body.get(protected.FIELD)
        if not isinstance(digest, str):
            return None
        if self.gone is None:
            self.gone = protected.redacted_digests(self.record)
        if digest in self.gone:
            return protected.REDACTED
        found = protected.get(self.record.repo, digest)
        return found if found is not None else "(not in this clone)"


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _ranges(prefix: str) -> list[tuple[str, str | None]]:
    """The key ranges (for the record's index) of the prefix itself and what
    lies below it, segment-wise; a prefix ending in a separator as written."""
    from hale_runtime.record.index import key_ranges, prefix_range

    if not prefix:
        return []
    if prefix[-1] in SEPARATORS:
        return [prefix_range(prefix)]
    return key_ranges(prefix, SEPARATORS)
