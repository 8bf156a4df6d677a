"""The signed record's door under hypothesis: whatever a hostile clone pushes.

Any clone can push any commit, so the test writes raw batches past the
door (tests/hostile.py): rows of authority signed by the genesis key, by a
key the record binds to nobody, by a key bound to another identity, or
not at all; signatures garbled, flipped, moved after their rows, their
batches reordered. Reading never fails, and an authority row stands only
when alice (genesis, so the Board) signed it, intact, in its batch's order.
Every other one is in the chain as a refused row, naming why."""

from __future__ import annotations

import base64
import itertools
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hostile import append_lines, line, row_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.record import Record
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import (
    KEY_REGISTERED,
    POSITION_FILLED,
    REVIEW_DECIDED,
    ROW_SIGNED,
    SCHEDULE_PAUSED,
)
from hale_runtime.record.signing import key_of, signature_body

ALICE, BOB = "alice@box:c0ffee00", "bob@elsewhere:0badc0de"
KEYS = {
    "alice": SigningKey(Ed25519PrivateKey.generate(), Path("alice")),  # genesis: the Board
    "bob": SigningKey(Ed25519PrivateKey.generate(), Path("bob")),  # bob's own, bound by itself
    "stranger": SigningKey(Ed25519PrivateKey.generate(), Path("stranger")),  # bound to nobody
}
AUTHORITY = [REVIEW_DECIDED, POSITION_FILLED, SCHEDULE_PAUSED]
HARMS = ["none", "flip", "garble", "sig after", "reversed", "other record", "unsigned"]

batches = st.lists(
    st.tuples(
        st.sampled_from(sorted(KEYS)),  # who signs
        st.lists(
            st.tuples(st.sampled_from(AUTHORITY), st.sampled_from([ALICE, BOB])),
            min_size=1,
            max_size=3,
        ),
        st.sampled_from(HARMS),
        st.integers(min_value=0, max_value=511),  # which bit a flip flips
    ),
    min_size=1,
    max_size=4,
)


def body_of(kind: str, n: int) -> dict:
    if kind == POSITION_FILLED:
        return {"position": f"p{n}", "holder": "bob"}
    if kind == REVIEW_DECIDED:
        return {"decision": "approved", "by": "alice", "practice": f"p{n}"}
    return {"by": "alice"}


def key_for(kind: str, n: int) -> str:
    return {POSITION_FILLED: f"position:p{n}", REVIEW_DECIDED: f"k:{n:012x}"}.get(kind, f"s{n}")


def genesis_record(path: Path) -> Record:
    record = Record.open(make_project(path), clock=stepping_clock(), who=ALICE, sign=KEYS["alice"])
    alice = KEYS["alice"]
    genesis = {"identity": "alice", "public": encode_public(alice.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(alice.fingerprint), genesis)
    bob = KEYS["bob"]
    own = {"identity": "bob", "public": encode_public(bob.public), "bound": "self"}
    Record.open(path, clock=stepping_clock(1_800_000_000_000), who=BOB, sign=bob).append(
        KEY_REGISTERED, key_of(bob.fingerprint), own
    )
    return record


def harmed(
    signer: SigningKey, binding: str, rows: list[str], harm: str, bit: int
) -> tuple[list[str], list[str]]:
    """(the lines a hostile writer pushes, the ids that should stand if signed by the Board)."""
    ids = [row_id(r) for r in rows]
    body = signature_body(signer, binding, ids)
    if harm == "flip":
        raw = bytearray(base64.b64decode(body["sig"]))
        raw[bit % len(raw)] ^= 1 << bit % 8
        body["sig"] = base64.b64encode(bytes(raw)).decode()
    elif harm == "garble":
        body = {**body, ["ids", "sig", "public", "record"][bit % 4]: [bit, None]}
    elif harm == "other record":
        body = signature_body(signer, "f" * 64, ids)
    sig = line(ROW_SIGNED, key_of(signer.fingerprint), body, who="alice@box:c0ffee00")
    if harm == "unsigned":
        return rows, []
    if harm == "sig after":
        return [*rows, sig], []
    if harm == "reversed":  # only the first row met keeps the batch's order
        return [sig, *reversed(rows)], [ids[-1]]
    if harm in ("flip", "garble", "other record"):
        return [sig, *rows], []
    return [sig, *rows], ids


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches)
def test_only_what_the_board_signed_stands(pushed: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p"
        binding = genesis_record(path).trust.record
        counter = itertools.count(1)
        stands: set[str] = set()
        written: list[str] = []
        for signer_name, rows, harm, bit in pushed:
            lines = []
            for kind, who in rows:
                n = next(counter)
                at = 1_900_000_000_000 + n
                lines.append(line(kind, key_for(kind, n), body_of(kind, n), at, who))
            out, signed = harmed(KEYS[signer_name], binding, lines, harm, bit)
            by_board = signer_name == "alice"
            stands |= {i for i in signed if by_board and f'"who":"{ALICE}"' in _line(lines, i)}
            written += [row_id(r) for r in lines]
            append_lines(path, out)
        record = Record.open(path)
        standing = {r.id for r in record.rows(kind=AUTHORITY)}
        assert standing == stands
        every = {r.id: r for r in record.rows(kind=AUTHORITY, poison=True)}
        for rid in set(written) - stands:
            assert record.poison_of(every[rid]).startswith("refused: "), rid


def _line(lines: list[str], rid: str) -> str:
    return next(one for one in lines if row_id(one) == rid)
