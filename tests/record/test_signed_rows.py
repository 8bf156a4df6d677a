"""Signed rows at the record's doors: batches signed as they are written,
authority rows judged as they join, whatever a hostile writer pushes.

Alice's key is the record's genesis and holds the Board; mallory has her
own key. A forged commit is written past the door (tests/hostile.py), as
any clone with push rights could."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hostile import append_lines, line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.record import Record
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import KEY_REGISTERED, REVIEW_DECIDED, ROW_SIGNED
from hale_runtime.record.signing import attribute, key_of, signature_body

ALICE, MALLORY = "alice@box:c0ffee00", "mallory@elsewhere:0badc0de"
ALICE_KEY = SigningKey(Ed25519PrivateKey.generate(), Path("alice"))
MALLORY_KEY = SigningKey(Ed25519PrivateKey.generate(), Path("mallory"))
DECISION = {"decision": "approved", "by": ALICE, "practice": "operating/record-first"}


def genesis_record(path: Path, clone: str = "c0ffee00") -> Record:
    """A record whose genesis is alice's key."""
    project = make_project(path, clone)
    record = Record.open(project, clock=stepping_clock(), who=ALICE, sign=ALICE_KEY)
    body = {"identity": "alice", "public": encode_public(ALICE_KEY.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(ALICE_KEY.fingerprint), body)
    return record


def signed_lines(key: SigningKey, record: str, lines: list[str]) -> list[str]:
    """The batch a writer holding `key` makes of `lines`: its signature row first."""
    from hostile import row_id

    body = signature_body(key, record, [row_id(one) for one in lines])
    return [line(ROW_SIGNED, key_of(key.fingerprint), body, who=MALLORY), *lines]


def decided(record: Record) -> list[str]:
    return [r.key for r in Record.open(record.repo.workdir).rows(kind=REVIEW_DECIDED)]


def refusal(record: Record, review: str) -> str:
    fresh = Record.open(record.repo.workdir)
    found = [r for r in fresh.rows(kind=REVIEW_DECIDED, poison=True) if r.key == review]
    assert found, "the forged row is not in the chain"
    return fresh.poison_of(found[0])


def test_a_batch_is_signed_once_before_its_rows(tmp_path: Path) -> None:
    record = genesis_record(tmp_path / "p")
    written = record.append_many([("claim.taken", f"plan/i{n}", {"token": n}) for n in range(3)])
    every = record.rows(signatures=True)
    assert [r.kind for r in every[-4:]] == [ROW_SIGNED, *["claim.taken"] * 3]
    assert every[-4].body["ids"] == [r.id for r in written]
    assert [r.seq for r in written] == [every[-3].seq, every[-2].seq, every[-1].seq]
    assert ROW_SIGNED not in {r.kind for r in record.rows()}  # readers see them when they ask
    trust = record.trust
    proofs = [proof for _, proof in attribute(record.rows(signatures=True), trust.record, 2)]
    assert {proof.fingerprint for proof in proofs} == {ALICE_KEY.fingerprint}


def test_the_board_decides_and_a_forged_decision_is_refused_as_it_joins(tmp_path: Path) -> None:
    record = genesis_record(tmp_path / "p")
    record.append(REVIEW_DECIDED, "k:000000000001", DECISION)
    assert decided(record) == ["k:000000000001"]
    forged = line(REVIEW_DECIDED, "k:000000000002", DECISION, who=ALICE)  # claims alice
    append_lines(
        Path(record.repo.workdir), signed_lines(MALLORY_KEY, record.trust.record, [forged])
    )
    assert decided(record) == ["k:000000000001"]
    why = refusal(record, "k:000000000002")
    assert why == (
        f"refused: k:000000000002 is signed by {MALLORY_KEY.fingerprint}, "
        "which the record does not bind to alice"
    )
    mallory = Record.open(record.repo.workdir, who=MALLORY, sign=MALLORY_KEY)
    with pytest.raises(RowRefused, match="k:000000000003 is signed by .* does not bind to mallory"):
        mallory.append(REVIEW_DECIDED, "k:000000000003", DECISION)


CORRUPTIONS = ("signature", "listed id", "row body", "public key", "moved", "other record")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CORRUPTIONS), st.integers(min_value=0, max_value=10**6))
def test_a_corrupted_signature_is_refused(corruption: str, bit: int) -> None:
    """Flipped bits anywhere in the proof, a signature moved onto another row,
    a signature made for another record: the decision never stands."""
    with tempfile.TemporaryDirectory() as tmp:
        record = genesis_record(Path(tmp) / "p")
        binding = record.trust.record
        row = line(REVIEW_DECIDED, "k:0000000000aa", DECISION, who=ALICE)
        sig_body = signature_body(ALICE_KEY, binding, [_id(row)])
        sig_body, row = _corrupt(corruption, bit, sig_body, row, binding)
        sig = line(ROW_SIGNED, key_of(ALICE_KEY.fingerprint), sig_body, who=ALICE)
        append_lines(Path(tmp) / "p", [sig, row])
        assert decided(record) == []
        assert refusal(record, "k:0000000000aa").startswith("refused: k:0000000000aa ")


def _id(text: str) -> str:
    from hostile import row_id

    return row_id(text)


def _flip(text: str, bit: int) -> str:
    raw = bytearray(base64.b64decode(text))
    raw[bit // 8 % len(raw)] ^= 1 << bit % 8
    return base64.b64encode(bytes(raw)).decode()


def _corrupt(how: str, bit: int, body: dict, row: str, binding: str) -> tuple[dict, str]:
    body = dict(body)
    if how == "signature":
        body["sig"] = _flip(body["sig"], bit)
    elif how == "listed id":
        listed = body["ids"][0]
        at = bit % len(listed)
        body["ids"] = [
            listed[:at] + format(int(listed[at], 16) ^ 1 + bit % 15, "x") + listed[at + 1 :]
        ]
    elif how == "row body":  # the row changed after it was signed: another id
        row = line(
            REVIEW_DECIDED, "k:0000000000aa", {**DECISION, "decision": "rejected"}, who=ALICE
        )
    elif how == "public key":  # the signature claims another key
        body["public"] = _flip(body["public"], bit)
    elif how == "moved":  # alice's signature, over another row of hers
        other = line(REVIEW_DECIDED, "k:0000000000bb", DECISION, who=ALICE)
        body = signature_body(ALICE_KEY, binding, [_id(other)])
    elif how == "other record":
        body = signature_body(ALICE_KEY, "0" * 64, [_id(row)])
    return body, row


def test_a_replayed_row_is_the_same_row(tmp_path: Path) -> None:
    """Appending a signed row again writes nothing new: one id, read once."""
    record = genesis_record(tmp_path / "p")
    first = record.append(REVIEW_DECIDED, "k:0000000000cc", DECISION)
    raw = [r for r in record.rows(signatures=True) if r.seq >= first.seq - 1]
    lines = [line(r.kind, r.key, r.body, r.at, r.who, r.clone) for r in raw]
    append_lines(tmp_path / "p", lines)  # the same batch pushed again
    again = Record.open(tmp_path / "p")
    assert [r.key for r in again.rows(kind=REVIEW_DECIDED)] == ["k:0000000000cc"]
    assert again.rows(kind=REVIEW_DECIDED)[0].seq == first.seq


def test_a_row_signed_for_another_record_is_refused(tmp_path: Path) -> None:
    """Alice's decision in one record, copied into another she is genesis of too."""
    one, two = genesis_record(tmp_path / "one"), genesis_record(tmp_path / "two", "2ecd2ecd")
    made = one.append(REVIEW_DECIDED, "k:0000000000dd", DECISION)
    batch = [r for r in one.rows(signatures=True) if r.seq >= made.seq - 1]
    append_lines(
        tmp_path / "two", [line(r.kind, r.key, r.body, r.at, r.who, r.clone) for r in batch]
    )
    assert decided(two) == []
    assert refusal(two, "k:0000000000dd") == "refused: k:0000000000dd is signed for another record"


def test_a_record_from_before_signing_reads_as_before_until_its_genesis(tmp_path: Path) -> None:
    old = Record.open(make_project(tmp_path / "p"), clock=stepping_clock(), who=MALLORY, sign=False)
    old.append(REVIEW_DECIDED, "k:0000000000e1", DECISION)  # unsigned, by anyone: as before
    assert decided(old) == ["k:0000000000e1"]
    alice = Record.open(tmp_path / "p", clock=stepping_clock(2_000_000_000_000), who=ALICE,
                        sign=ALICE_KEY)  # fmt: skip
    body = {"identity": "alice", "public": encode_public(ALICE_KEY.public), "bound": "genesis"}
    alice.append(KEY_REGISTERED, key_of(ALICE_KEY.fingerprint), body)
    with pytest.raises(RowRefused, match="k:0000000000e2 is not signed"):
        old.append(REVIEW_DECIDED, "k:0000000000e2", DECISION)
    append_lines(tmp_path / "p", [line(REVIEW_DECIDED, "k:0000000000e3", DECISION, who=ALICE)])
    alice.append(REVIEW_DECIDED, "k:0000000000e4", DECISION)
    assert decided(old) == ["k:0000000000e1", "k:0000000000e4"]
    assert refusal(old, "k:0000000000e3") == "refused: k:0000000000e3 is not signed"


def test_verdicts_and_the_fold_survive_the_index(tmp_path: Path) -> None:
    """A refused row stays refused when read back from the index, and the
    fold (the Board's holder, the keys) is made again from what stood."""
    record = genesis_record(tmp_path / "p")
    forged = line(REVIEW_DECIDED, "k:0000000000f1", DECISION, who=ALICE)
    append_lines(tmp_path / "p", signed_lines(MALLORY_KEY, record.trust.record, [forged]))
    record.append("position.filled", "position:editor", {"position": "editor", "holder": "bob"})
    record.refresh()
    record.close()  # everything is stamped (no remote): it moves into the index
    reopened = Record.open(tmp_path / "p")
    end = reopened.cursor()
    assert reopened._base[1] == end  # read from the index alone
    assert decided(reopened) == []
    assert refusal(reopened, "k:0000000000f1").startswith("refused: k:0000000000f1 is signed by")
    trust = reopened.trust
    assert trust.holders == {"editor": "bob"}
    assert trust.genesis == ALICE_KEY.fingerprint and trust.board_holder() == "alice"
