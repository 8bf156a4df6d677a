"""Rows carried from the ledger keep their writer's proof: the head that appends
signs its batch (`Record.sealed`), and the host that carries it (another
node, after a takeover) writes that signature with them, signing nothing
itself; a row put into the ledger by anyone else is judged as a forged
push is (quarantined when it claims an authority it does not prove)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hostile import line, row_id  # noqa: E402
from record_helpers import make_project, stepping_clock  # noqa: E402

from hale_runtime.ledger import keeper  # noqa: E402
from hale_runtime.ledger.keeper import CARRY_BATCH, LedgerKeeper, pack, whole_batches  # noqa: E402
from hale_runtime.record import Record  # noqa: E402
from hale_runtime.record.keys import SigningKey, encode_public  # noqa: E402
from hale_runtime.record.kinds import (  # noqa: E402
    CLAIM_RELEASED,
    KEY_REGISTERED,
    REVIEW_DECIDED,
    ROW_SIGNED,
)
from hale_runtime.record.signing import attribute, key_of, signature_body  # noqa: E402

ALICE, BOB, MALLORY = "alice@box:c0ffee00", "bob@box2:c0ffee00", "mallory@x:0badc0de"
ALICE_KEY = SigningKey(Ed25519PrivateKey.generate(), Path("alice"))
BOB_KEY = SigningKey(Ed25519PrivateKey.generate(), Path("bob"))
MALLORY_KEY = SigningKey(Ed25519PrivateKey.generate(), Path("mallory"))
DECISION = {"decision": "approved", "by": ALICE, "practice": "operating/record-first"}


def register(record: Record, key: SigningKey, name: str, bound: str) -> None:
    body = {"identity": name, "public": encode_public(key.public), "bound": bound}
    record.append(KEY_REGISTERED, key_of(key.fingerprint), body)


@pytest.fixture
def two_hosts(tmp_path: Path) -> tuple[Record, Record]:
    """Alice's record (genesis, so the Board) and bob's on the same clone, each key bound."""
    project = make_project(tmp_path / "p")
    alice = Record.open(project, clock=stepping_clock(), who=ALICE, sign=ALICE_KEY)
    register(alice, ALICE_KEY, "alice", "genesis")
    bob = Record.open(project, clock=stepping_clock(), who=BOB, sign=BOB_KEY)
    register(bob, BOB_KEY, "bob", "self")
    return alice, bob


def proofs(project: str) -> dict[str, str]:
    """Row id -> the fingerprint its signature proves ("" when none), read afresh."""
    record = Record.open(project)
    trust = record.trust
    genesis = record.get(trust.record)
    every = record.scan(0, poison=True, signatures=True)
    return {row.id: p.fingerprint for row, p in attribute(every, trust.record, genesis.seq)}


def test_a_carried_row_keeps_the_signature_its_writer_made(store, two_hosts) -> None:
    alice, bob = two_hosts
    epoch = store.take("body", ALICE, 30).token
    rows = [(REVIEW_DECIDED, "k:000000000001", DECISION), (CLAIM_RELEASED, "lease/a1", {})]
    sealed = alice.sealed(rows)  # what alice's head appends
    assert [ROW_SIGNED in text for _, text in sealed] == [True, False, False]
    store.ledger_append(sealed, ("body", epoch))
    store.take("body", BOB, 30)  # released or expired in life; here bob simply carries
    carried = LedgerKeeper(bob, store, BOB, None, 30, 30, pytest.fail).carry()
    assert carried == 3 and store.ledger_count() == 0

    fresh = Record.open(alice.repo.workdir)
    decided = fresh.rows(kind=REVIEW_DECIDED)
    assert [(r.key, r.who) for r in decided] == [("k:000000000001", ALICE)]  # it stands
    proven = proofs(alice.repo.workdir)
    for row_id_, _ in sealed[1:]:
        assert proven[row_id_] == ALICE_KEY.fingerprint  # alice's proof, not bob's
    signers = {r.body["public"] for r in fresh.rows(kind=ROW_SIGNED, signatures=True)}
    assert encode_public(BOB_KEY.public) in signers  # bob signed his own key's row only
    bob_signed = [
        r for r in fresh.rows(kind=ROW_SIGNED, signatures=True)
        if r.body["public"] == encode_public(BOB_KEY.public)
    ]  # fmt: skip
    assert all(set(r.body["ids"]) & {i for i, _ in sealed} == set() for r in bob_signed)


def test_a_row_put_into_the_ledger_by_another_hand_proves_nothing(store, two_hosts) -> None:
    alice, bob = two_hosts
    epoch = store.take("body", ALICE, 30).token
    record_id = alice.trust.record
    forged = line(REVIEW_DECIDED, "k:000000000009", DECISION, who=ALICE)  # claims alice
    plain = line(CLAIM_RELEASED, "lease/a9", {}, who=ALICE)
    signature = line(
        ROW_SIGNED,
        key_of(MALLORY_KEY.fingerprint),
        signature_body(MALLORY_KEY, record_id, [row_id(forged)]),
        who=MALLORY,
    )
    hostile = [signature, forged, plain, '{"not": "a row"}', "{"]
    store.ledger_append([(f"h{n}", text) for n, text in enumerate(hostile)], ("body", epoch))
    said: list[str] = []
    carried = LedgerKeeper(bob, store, BOB, None, 30, 30, said.append).carry()
    assert carried == 3 and store.ledger_count() == 0
    assert len(said) == 2 and all("was not carried" in s for s in said)

    fresh = Record.open(alice.repo.workdir)
    assert fresh.rows(kind=REVIEW_DECIDED) == []  # not obeyed
    poisoned = [r for r in fresh.rows(kind=REVIEW_DECIDED, poison=True)]
    assert len(poisoned) == 1 and "does not bind to alice" in fresh.poison_of(poisoned[0])
    proven = proofs(alice.repo.workdir)
    assert proven[row_id(plain)] == ""  # carried as it came: unsigned, not vouched for by bob
    assert fresh.rows(kind=CLAIM_RELEASED) == []  # a node's row no bound key signed
    (released,) = fresh.rows(kind=CLAIM_RELEASED, poison=True)
    assert fresh.poison_of(released) == "refused: lease/a9 is not signed"


def test_batches_interleaved_by_concurrent_heads_are_carried_whole(
    store, two_hosts, monkeypatch
) -> None:
    """The issue's loss: one body's signature, then another's, then the first's rows
    (a signature at 891 covering 893-894, another at 892). A carry cut in seq order
    left a signature without its rows, and they failed to verify."""
    alice, bob = two_hosts
    register(
        alice, BOB_KEY, "bob", "endorsed"
    )  # bob's head writes a node's rows: the Board binds him
    epoch = store.take("body", ALICE, 30).token
    ours = alice.sealed([(CLAIM_RELEASED, "lease/a1", {}), (CLAIM_RELEASED, "lease/a2", {})])
    theirs = bob.sealed([(CLAIM_RELEASED, "lease/b1", {}), (CLAIM_RELEASED, "lease/b2", {})])
    interleaved = [ours[0], theirs[0], *ours[1:], *theirs[1:]]
    store.ledger_append(interleaved, ("body", epoch))
    monkeypatch.setattr(keeper, "WINDOW", 4)  # the window cuts bob's batch: it waits
    monkeypatch.setattr(keeper, "CARRY_BATCH", 4)
    carrier = LedgerKeeper(bob, store, BOB, None, 30, 30, pytest.fail)
    assert carrier.carry() == 3 and store.ledger_count() == 3  # alice's batch, whole
    assert carrier.carry(everything=True) == 3 and store.ledger_count() == 0
    proven = proofs(alice.repo.workdir)
    for (row_id_, _), signer in [(ours[1], ALICE_KEY), (ours[2], ALICE_KEY),
                                 (theirs[1], BOB_KEY), (theirs[2], BOB_KEY)]:  # fmt: skip
        assert proven[row_id_] == signer.fingerprint
    fresh = Record.open(alice.repo.workdir)
    keys = sorted(r.key for r in fresh.rows(kind=CLAIM_RELEASED))
    assert keys == ["lease/a1", "lease/a2", "lease/b1", "lease/b2"]  # each once, none poison


def test_whole_batches_group_by_signature_and_keep_a_cut_one_back() -> None:
    a, b = row_id(line(CLAIM_RELEASED, "lease/1", {})), row_id(line(CLAIM_RELEASED, "lease/2", {}))
    sig = line(ROW_SIGNED, "key:x", {"ids": [a, b], "public": "", "record": "", "sig": ""})
    plain = [(f"p{n}", line(CLAIM_RELEASED, f"lease/p{n}", {})) for n in range(3)]
    row_a, row_b = (
        (a, line(CLAIM_RELEASED, "lease/1", {})),
        (b, line(CLAIM_RELEASED, "lease/2", {})),
    )
    waiting = [("s", sig), plain[0], row_a, plain[1], row_b, plain[2]]
    grouped = whole_batches(waiting, full=True)
    assert grouped == [[("s", sig), row_a, row_b], [plain[0]], [plain[1]], [plain[2]]]
    cut = waiting[:4]  # the window ended before row_b: the signed batch waits, whole
    assert whole_batches(cut, full=True) == [[plain[0]], [plain[1]]]
    assert whole_batches(cut, full=False) == [[("s", sig), row_a], [plain[0]], [plain[1]]]
    assert pack([[plain[0]]] * CARRY_BATCH + [[plain[1]]]) == [
        [plain[0]] * CARRY_BATCH, [plain[1]]
    ]  # fmt: skip
