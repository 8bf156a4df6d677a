"""A new clone joins from the index snapshot the remote holds, and only from an honest one."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path

import pygit2
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import ids, stepping_clock

from hale_runtime.record import Record, snapshot
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import KEY_REGISTERED
from hale_runtime.record.signing import key_of

ALICE = SigningKey(Ed25519PrivateKey.generate(), Path("alice"))
MALLORY = SigningKey(Ed25519PrivateKey.generate(), Path("mallory"))


def written(path: Path, key: SigningKey = ALICE, rows: int = 300) -> Record:
    """A clone whose record's genesis is alice's key, `rows` rows synced to origin."""
    record = Record.open(path, clock=stepping_clock(), who="alice@box", sign=key)
    body = {"identity": "alice", "public": encode_public(ALICE.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(ALICE.fingerprint), body)
    for first in range(0, rows, 50):
        record.append_many(
            [("claim.taken", f"plan/i{i}", {"token": i}) for i in range(first, first + 50)]
        )
    record.sync()
    return record


def joined(record: Record) -> str:
    assert record._index is not None
    return snapshot.joined_from(record._index.db)


def push_commit(repo: pygit2.Repository, manifest: dict, payload: bytes) -> None:
    """A snapshot commit of exactly these parts, pushed to origin's REF."""
    builder = repo.TreeBuilder()
    builder.insert(snapshot.PAYLOAD, repo.create_blob(payload), pygit2.enums.FileMode.BLOB)
    text = json.dumps(manifest).encode()
    builder.insert(snapshot.MANIFEST, repo.create_blob(text), pygit2.enums.FileMode.BLOB)
    sig = pygit2.Signature("m", "m@m", 1, 0)
    hexid = str(repo.create_commit(None, sig, sig, "lie", builder.write(), []))
    assert snapshot.push(repo, "origin", hexid, 30) == ""


def test_a_fresh_clone_joins_from_the_snapshot(make_clone: Callable[[str], Path]) -> None:
    alice = written(make_clone("alice"))
    assert alice.share_index("origin", force=True) == ""
    fresh = Record.open(make_clone("fresh"))
    fresh.sync()
    assert fresh.snapshot_refused == ""
    manifest, _ = snapshot.read_manifest(alice.repo, snapshot.REF)  # type: ignore[misc]
    assert joined(fresh) == manifest["covers"] == str(alice.refresh())
    assert ids(fresh) == ids(alice) and len(ids(fresh)) == 301
    assert fresh.trust.genesis == ALICE.fingerprint
    alice.append("claim.taken", "plan/after", {"token": 1})  # the tail past it reads from git
    alice.sync()
    fresh.sync()
    assert ids(fresh) == ids(alice)


def hostile(kind: str, alice: Record) -> None:
    """Push, over alice's honest snapshot, one that lies in the way `kind` says."""
    repo = alice.repo
    if kind == "mallory's key":
        hexid = snapshot.write(repo, alice._index.db, MALLORY, 1)  # type: ignore[union-attr]
        assert snapshot.push(repo, "origin", hexid, 30) == ""
        return
    manifest, payload = snapshot.read_manifest(repo, snapshot.REF)  # type: ignore[misc]
    if kind == "payload changed":
        raw = bytearray(zlib.decompress(payload))
        raw[len(raw) // 2] ^= 0xFF
        push_commit(repo, manifest, zlib.compress(bytes(raw)))
    elif kind == "covers another commit":
        manifest = {**manifest, "covers": "0" * 40}
        manifest["signature"] = snapshot.sign_manifest(manifest, ALICE)
        push_commit(repo, manifest, payload)


@pytest.mark.parametrize("kind", ["mallory's key", "payload changed", "covers another commit"])
def test_a_hostile_snapshot_is_refused_and_the_index_rebuilt(
    make_clone: Callable[[str], Path], kind: str
) -> None:
    alice = written(make_clone("alice"))
    assert alice.share_index("origin", force=True) == ""
    hostile(kind, alice)
    fresh = Record.open(make_clone("fresh"))
    fresh.sync()
    assert fresh.snapshot_refused != ""
    assert joined(fresh) == ""  # built from git
    assert ids(fresh) == ids(alice)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    manifest=st.dictionaries(
        st.sampled_from(["version", "covers", "commits", "rows", "sha256", "public", "signature"]),
        st.one_of(st.integers(-2, 10**6), st.text(max_size=80), st.none()),
    ),
    payload=st.binary(max_size=300),
)
def test_any_snapshot_is_used_or_refused_never_raises(
    make_clone: Callable[[str], Path], manifest: dict, payload: bytes
) -> None:
    alice = (
        written(make_clone("alice"), rows=50)
        if not hasattr(make_clone, "made")
        else make_clone.made
    )  # type: ignore[attr-defined]
    make_clone.made = alice  # type: ignore[attr-defined]
    tip = alice.refresh()
    assert tip is not None
    try:
        chain = snapshot.verify(alice.repo, manifest, payload, tip)
        snapshot.install(Path(alice.repo.path) / "hale" / "probe.index", manifest, payload, chain)
    except snapshot.Refused as why:
        assert str(why)
    else:
        pytest.fail("a snapshot no genesis key signed was used")


def test_a_snapshot_is_published_only_when_due(
    make_clone: Callable[[str], Path], remote: Path
) -> None:
    alice = written(make_clone("alice"))  # its syncs: fewer rows than EVERY_ROWS
    origin = pygit2.Repository(str(remote))
    assert snapshot.REF not in origin.references
    assert alice.share_index("origin", force=True) == ""
    first = origin.references[snapshot.REF].target
    alice.append("claim.taken", "plan/more", {"token": 2})
    alice.sync()
    assert origin.references[snapshot.REF].target == first  # not due: the same one stays
    mallory = Record.open(
        make_clone("mallory"), clock=stepping_clock(), who="mallory@box", sign=MALLORY
    )
    assert (
        mallory.share_index("origin", force=True)
        == "only the genesis key's holder publishes the index"
    )
