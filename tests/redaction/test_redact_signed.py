"""A redaction is judged by its signature: it stands signed by a key bound to its
row's writer, or by the Board's; any other (unsigned, signed by another key,
for another record, naming someone it does not prove, naming a body its row
does not carry) is poison, quarantined and never obeyed, whatever a hostile
clone pushes. Alice's key is genesis (the Board while it is unheld); ann
and mallory have keys of their own; ann wrote the row."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hostile import append_lines, line, row_id  # noqa: E402
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock  # noqa: E402

from hale_runtime.record import Record, protected  # noqa: E402
from hale_runtime.record.keys import SigningKey, encode_public  # noqa: E402
from hale_runtime.record.kinds import (  # noqa: E402
    KEY_REGISTERED,
    POSITION_FILLED,
    READING_TAKEN,
    ROW_REDACTED,
    ROW_SIGNED,
)
from hale_runtime.record.signing import key_of, signature_body  # noqa: E402

ALICE, ANN, MALLORY = "alice@box:c0ffee00", "ann@box2:c0ffee00", "mallory@x:0badc0de"
KEYS = {n: SigningKey(Ed25519PrivateKey.generate(), Path(n)) for n in ("alice", "ann", "mallory")}


def as_(project: Path, who: str, name: str) -> Record:
    return Record.open(project, clock=stepping_clock(), who=who, sign=KEYS[name])


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, str, str]:
    """(project, the row ann wrote, the digest of its protected body)."""
    project = make_project(tmp_path / "p")
    for who, name, bound in ((ALICE, "alice", "genesis"), (ANN, "ann", "self"),
                             (MALLORY, "mallory", "self")):  # fmt: skip
        body = {"identity": name, "public": encode_public(KEYS[name].public), "bound": bound}
        as_(project, who, name).append(KEY_REGISTERED, key_of(KEYS[name].fingerprint), body)
    ann = as_(project, ANN, "ann")
    digest = protected.put(ann.repo, {"detail": "ann's card"}, durable=False)
    row = ann.append(READING_TAKEN, "billing", {"kind": "down", "protected": digest})
    return project, row.id, digest


def standing(project: Path) -> set[str]:
    return protected.redacted_digests(Record.open(project))


def refusal(project: Path) -> str:
    fresh = Record.open(project)
    found = fresh.rows(kind=ROW_REDACTED, poison=True)
    assert len(found) == 1, "the forged redaction is not in the chain"
    return fresh.poison_of(found[0])


def test_the_rows_writer_redacts_with_its_key(world) -> None:
    project, target, digest = world
    as_(project, ANN, "ann").append(ROW_REDACTED, target, {"protected": digest})
    assert standing(project) == {digest}


def test_the_board_redacts_with_an_endorsed_key_and_a_writer_naming_it_does_not(world) -> None:
    project, target, digest = world
    body = {"protected": digest}
    with pytest.raises(Exception, match="signed by neither its row's writer"):
        as_(project, MALLORY, "mallory").append(ROW_REDACTED, target, body)  # refused at the door
    alice = as_(project, ALICE, "alice")
    alice.append(POSITION_FILLED, "position:board", {"position": "board", "holder": "mallory"})
    # mallory holds the Board, but her key is self-bound: she proves who she is, not the Board
    forged = line(ROW_REDACTED, target, body, who=MALLORY)
    append_lines(project, signed(KEYS["mallory"], alice.trust.record, [forged]))
    assert standing(project) == set()
    assert "nor the Board's holder (mallory)" in refusal(project)


def signed(key: SigningKey, record: str, lines: list[str], who: str = MALLORY) -> list[str]:
    body = signature_body(key, record, [row_id(one) for one in lines])
    return [line(ROW_SIGNED, key_of(key.fingerprint), body, who=who), *lines]


WHO = st.sampled_from([ANN, "ann@elsewhere:12345678", ALICE, MALLORY, "ann", "", "bob@b:c"])
HOW = st.sampled_from(["unsigned", "mallory", "ann-other-record", "ann-other-ids", "garbage",
                       "after", "alice-for-ann"])  # fmt: skip


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(who=WHO, how=HOW, other_digest=st.booleans())
def test_a_redaction_its_signature_does_not_prove_is_never_obeyed(world, who, how, other_digest):
    project, target, digest = world
    before = len(Record.open(project).rows(kind=ROW_REDACTED, poison=True))
    body = {"protected": "f" * 40 if other_digest else digest}
    forged = line(ROW_REDACTED, target, body, who=who, at=1_767_225_700_000 + before)
    record_id = Record.open(project).trust.record
    if how == "unsigned":
        lines = [forged]
    elif how == "mallory":
        lines = signed(KEYS["mallory"], record_id, [forged])
    elif how == "ann-other-record":
        lines = signed(KEYS["ann"], "0" * 64, [forged], ANN)
    elif how == "ann-other-ids":
        lines = [*signed(KEYS["ann"], record_id, [line("note.made", "x", {"n": before})], ANN),
                 forged]  # fmt: skip
    elif how == "garbage":
        sig = signature_body(KEYS["ann"], record_id, [row_id(forged)])
        lines = [line(ROW_SIGNED, key_of(KEYS["ann"].fingerprint), {**sig, "sig": "AAAA"}),
                 forged]  # fmt: skip
    elif how == "after":  # the signature after the row it lists covers nothing before it
        lines = [forged, *signed(KEYS["ann"], record_id, [], ANN)[:1]]
        lines[1] = line(ROW_SIGNED, key_of(KEYS["ann"].fingerprint),
                        signature_body(KEYS["ann"], record_id, [row_id(forged)]))  # fmt: skip
    else:  # genesis's key, for a writer naming ann: it proves alice, not ann
        lines = signed(KEYS["alice"], record_id, [forged], ALICE)
        if who.startswith("alice@") and not other_digest:
            return  # genesis may redact while the Board is unheld: that one stands
    append_lines(project, lines)
    assert digest not in standing(project)
    fresh = Record.open(project)
    found = fresh.rows(kind=ROW_REDACTED, poison=True)
    assert len(found) == before + 1
    assert fresh.poison_of(found[-1])  # quarantined, as a row: its place kept, never read
    assert fresh.rows(kind=ROW_REDACTED) == []
