"""Forged grants under hypothesis: whatever a hostile clone pushes.

The record has a genesis (alice, so the Board), bob holding position:leader
with a key alice endorsed, a stranger's key bound to nobody, and Reviews of
two families. A hostile clone pushes grants and revocations past the door,
signed by any of the three, intact or with a flipped bit or no signature
at all, each followed by bob's decision of a fresh Review. A grant stands
only when alice signed it intact (a revocation also needs a grant to
end), and bob's decision stands exactly when the grants that stood cover
its Review's family; every other row is in the chain, refused."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hostile import append_lines, line, row_id
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hale_runtime.record import Record
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import (
    GRANT_GIVEN,
    GRANT_REVOKED,
    KEY_REGISTERED,
    POSITION_FILLED,
    REVIEW_DECIDED,
    REVIEW_OPENED,
    ROW_SIGNED,
)
from hale_runtime.record.signing import key_of, signature_body

ALICE, BOB = "alice@box:c0ffee00", "bob@box:0badc0de"
KEYS = {
    "alice": SigningKey(Ed25519PrivateKey.generate(), Path("alice")),
    "bob": SigningKey(Ed25519PrivateKey.generate(), Path("bob")),
    "stranger": SigningKey(Ed25519PrivateKey.generate(), Path("stranger")),
}
FAMILIES = ("operating", "shaping")
MOST = 6  # pushes an example makes; each decides a fresh Review of each family

pushes = st.lists(
    st.tuples(
        st.sampled_from(sorted(KEYS)),  # who signs
        st.sampled_from([ALICE, BOB]),  # who the grant says wrote it
        st.one_of(st.lists(st.sampled_from(FAMILIES), min_size=1, max_size=2), st.none()),
        st.sampled_from(["none", "flip", "unsigned"]),
        st.integers(min_value=0, max_value=511),  # which bit a flip flips
    ),
    min_size=1,
    max_size=MOST,
)


def review(family: str, n: int) -> str:
    return f"k:{FAMILIES.index(family):02x}{n:010x}"


def board_record(path: Path) -> Record:
    pygit2.init_repository(str(path), initial_head="main").config["hale.clone"] = "c0ffee00"
    alice, bob = KEYS["alice"], KEYS["bob"]
    record = Record.open(path, who=ALICE, sign=alice)
    bound = {"identity": "alice", "public": encode_public(alice.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(alice.fingerprint), bound)
    bound = {"identity": "bob", "public": encode_public(bob.public), "bound": "endorsed"}
    opened = [
        (REVIEW_OPENED, review(f, n), {"family": f, "practice": f"{f}/{n}", "receipt": "r"})
        for f in FAMILIES
        for n in range(MOST)
    ]
    record.append_many(
        [
            (KEY_REGISTERED, key_of(bob.fingerprint), bound),
            (POSITION_FILLED, "position:leader", {"position": "leader", "holder": "bob"}),
            *opened,
        ]
    )
    return record


def pushed(signer: SigningKey, binding: str, row: str, harm: str, bit: int) -> list[str]:
    """The lines a hostile clone pushes for one row, signed by `signer` and harmed."""
    if harm == "unsigned":
        return [row]
    body = signature_body(signer, binding, [row_id(row)])
    if harm == "flip":
        raw = bytearray(base64.b64decode(body["sig"]))
        raw[bit % len(raw)] ^= 1 << bit % 8
        body["sig"] = base64.b64encode(bytes(raw)).decode()
    return [line(ROW_SIGNED, key_of(signer.fingerprint), body), row]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pushes)
@example([("alice", ALICE, ["operating"], "none", 0), ("bob", BOB, ["shaping"], "none", 0),
          ("alice", ALICE, None, "none", 0)])  # fmt: skip
def test_the_leader_decides_exactly_what_the_boards_grants_cover(forged: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p"
        binding = board_record(path).trust.record
        covered: tuple[str, ...] = ()  # the families the grants that stood cover
        stands: set[str] = set()
        refused: set[str] = set()
        for n, (signer, who, families, harm, bit) in enumerate(forged):
            at = 1_900_000_000_000 + n * 10
            if families is None:
                row = line(GRANT_REVOKED, "grant/leader", {"position": "leader"}, at, who)
            else:
                body = {"position": "leader", "reviews": families}
                row = line(GRANT_GIVEN, "grant/leader", body, at, who)
            by_board = signer == "alice" and who == ALICE and harm == "none"
            if by_board and (families is not None or covered):
                covered = tuple(families or ())
                stands.add(row_id(row))
            else:
                refused.add(row_id(row))
            lines = pushed(KEYS[signer], binding, row, harm, bit)
            for family in FAMILIES:
                decided = {"decision": "approved", "by": BOB, "practice": ""}
                decision = line(REVIEW_DECIDED, review(family, n), decided, at + 1, BOB)
                (stands if family in covered else refused).add(row_id(decision))
                lines += pushed(KEYS["bob"], binding, decision, "none", 0)
            append_lines(path, lines)
        record = Record.open(path)
        every = record.rows(kind=(GRANT_GIVEN, GRANT_REVOKED, REVIEW_DECIDED), poison=True)
        assert {r.id for r in every if not record.poison_of(r)} == stands
        assert {r.id for r in every if record.poison_of(r).startswith("refused: ")} == refused
        assert tuple(getattr(record.trust.grants.given.get("leader"), "reviews", ())) == covered
