"""Signed batches: one `row.signed` row vouches for the rows that follow it.

A batch of rows is one append. Its writer signs the batch once: a
`row.signed` row, placed before the rows it covers, whose body lists their
ids and carries the writer's public key and an Ed25519 signature over

    hale row.signed 1 \\n <record> \\n <id> \\n <id> …

Each id is the SHA-256 of its row's whole content (kind, key, body, who,
at, clone), so signing the ids signs the rows, and a row changed by one
bit is no longer the row signed. `<record>` binds the signature to this
record: the id of its genesis row (trust.py), or "" before it has one. A
batch signed for another record does not verify here, so a decision
copied from one record into another (two records seed the same practices,
so their Reviews have the same keys) is not a decision here.

Nothing here touches a git commit: a sync's rebase writes the rows again
in a new commit, in the same order, with the same ids, and the signature
row travels with them as a row. A batch of more than `MOST` rows is signed
in chunks, each signature row before its own chunk.

Signing costs one Ed25519 signature per batch; verifying, one check per
signature row, made only when a reader asks about a row it covers
(`Cover.proof`), and remembered.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from hale_runtime.record import keys, kinds
from hale_runtime.record.keys import SigningKey
from hale_runtime.record.row import Row

SIGNED = kinds.ROW_SIGNED
MOST = kinds.SIGNATURE_IDS  # ids one signature row lists
HEADER = b"hale row.signed 1\n"


def message(record: str, ids: Sequence[str]) -> bytes:
    """What a signature row's signature is over."""
    return HEADER + record.encode() + b"\n" + "\n".join(ids).encode()


def key_of(fingerprint: str) -> str:
    """The key a signature (or a key's registration) row is written under."""
    return f"key:{fingerprint}"


def signature_body(key: SigningKey, record: str, ids: Sequence[str]) -> dict[str, Any]:
    """The body of the signature row over `ids` by `key`, bound to `record`."""
    signature = key.sign(message(record, ids))
    return {
        "ids": list(ids),
        "public": keys.encode_public(key.public),
        "record": record,
        "sig": base64.b64encode(signature).decode(),
    }


class Proof(NamedTuple):
    """What a row's signature proves: the key's fingerprint ("" when none
    verifies) and, when none does, why and the key it claims ("" if none)."""

    fingerprint: str
    why: str = ""
    claimed: str = ""


UNSIGNED = Proof("", "is not signed")
OUT_OF_ORDER = Proof("", "is out of the order its batch was signed in")


class Cover:
    """One signature row as a reader meets it: the ids it lists, and whether
    its signature verifies (checked the first time a covered row asks).
    Rows are asked about in chain order, and a row met out of the order the
    signature lists is not covered: a writer reordering a signed batch
    (a fill after the vacate it preceded) proves nothing by it."""

    __slots__ = ("body", "record", "ids", "_last", "_proof")

    def __init__(self, body: dict[str, Any], record: str):
        self.body, self.record = body, record
        listed = body.get("ids")  # any writer wrote it: only text can name a row
        ids = listed if isinstance(listed, list) else []
        self.ids = {i: n for n, i in enumerate(ids) if isinstance(i, str)}
        self._last = -1
        self._proof: Proof | None = None

    def proof(self, row_id: str) -> Proof:
        """What this signature proves of the row `row_id`, the next row met."""
        at = self.ids.get(row_id)
        if at is None:
            return UNSIGNED
        if at <= self._last:
            return OUT_OF_ORDER
        self._last = at
        if self._proof is None:
            self._proof = check(self.body, self.record)
            if not self._proof.fingerprint:
                public = keys.decode_public(self.body.get("public", ""))
                claimed = keys.fingerprint(public) if public is not None else ""
                self._proof = self._proof._replace(claimed=claimed)
        return self._proof


def check(body: dict[str, Any], record: str) -> Proof:
    """Verify one signature row's body, bound to `record`."""
    public = keys.decode_public(body.get("public", ""))
    ids, sig, bound = body.get("ids"), body.get("sig"), body.get("record")
    if public is None or not isinstance(ids, list) or not isinstance(sig, str):
        return Proof("", "has a signature row that is not one")
    if not all(isinstance(i, str) for i in ids):
        return Proof("", "has a signature row that is not one")
    if bound != record:
        return Proof("", "is signed for another record")
    try:
        signature = base64.b64decode(sig, validate=True)
    except ValueError:
        return Proof("", "has a signature that does not verify")
    if not keys.verify(public, signature, message(record, ids)):
        return Proof("", "has a signature that does not verify")
    return Proof(keys.fingerprint(public))


def attribute(
    rows: Iterable[Row], record: str = "", bound_from: int = 0
) -> Iterator[tuple[Row, Proof]]:
    """Each row but the signature rows, with what its signature proves: rows
    in chain order, signature rows among them; a signature row past seq
    `bound_from` is bound to `record` (the genesis's id), one before it to ""."""
    cover: Cover | None = None
    for row in rows:
        if row.kind == SIGNED:
            cover = Cover(row.body, record if record and row.seq > bound_from else "")
        else:
            yield row, cover.proof(row.id) if cover is not None else UNSIGNED
