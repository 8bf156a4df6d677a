"""The index travels: a signed snapshot of it, on the remote, for a new clone to start from.

A fresh clone would otherwise build its index (index.py) by decoding every
row from git, about 100 µs a row. Instead a writer publishes, now and then,
a copy of its index's stamped prefix as one commit under `refs/dna/record-index`
(sync's fetch glob `refs/dna/record*` brings it to every clone with the record):
its tree holds the SQLite file deflated (`index.z`) and a manifest naming the
record commit it ends at (`covers`), its commits and rows, the payload's
SHA-256, the signer's public key and an Ed25519 signature over the rest.

Anyone who can push can push a snapshot, so a reader uses one only when:
- the manifest is this hale's index version (the same table of kinds) and
  the payload's SHA-256 is the one signed;
- `covers` is on the record's chain, walked back along first parents from
  the tip, at the place the manifest says, and the snapshot's table of
  commits is exactly that walk (every hex and parent, root first), its
  rows ending where it says;
- the signer is the record's genesis key (its first `key.registered` row
  bound `genesis`, found in git and proved by its own signature row).

Why genesis, not any endorsed key: what a snapshot says of each row (its
body, its verdict, the trust fold the rows make) cannot be checked against
git without decoding every row, which is the cost a snapshot saves. So its
content is taken on the signer's word, and the only key a new clone can
establish without the fold is the record's root, read from the chain's own
first rows. An endorsed key's authority comes from the fold a lying
snapshot could forge. A snapshot that fails any check is ignored and the
index is built from git, as before; nothing in it is ever half used.

It is installed only into an index that holds no commit (a clone's first
read, or after `repair` removed it), by replacing the file: another process
of the clone that opened the empty file before goes on building its own
from git until it next opens the index. A writer publishes when one is due
(`due`): EVERY_ROWS past the last, and SPACING times the last one's making
time since it was made, so the writer spends at most 1/SPACING of its time
on them. Each is the whole index (about 110 bytes a row deflated), replacing
the last; segments written once each would cost less at 10^6 rows and up.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygit2

from hale_runtime.record import keys, kinds, signing, store
from hale_runtime.record.errors import RecordError
from hale_runtime.record.index import NAME, VERSION
from hale_runtime.record.row import canonical, decode_line

if TYPE_CHECKING:
    from hale_runtime.record.keys import SigningKey

REF = "refs/dna/record-index"  # under sync's fetch glob, so it travels with the record
PAYLOAD = "index.z"
MANIFEST = "manifest.json"
MAX_PAYLOAD = 1 << 30  # bytes of inflated index a snapshot may hold
MAX_MANIFEST = 64 << 10
EVERY_ROWS = 5_000  # a writer publishes once this many stamped rows are past the last one,
SPACING = 20  # ... and this many times the last one's making time has passed since it was made
_GENESIS = re.compile(rb'^.*"bound":"genesis".*"kind":"key\.registered".*$', re.M)


class Refused(RecordError):
    """A snapshot that is not used (why, in one line)."""


def tracked(remote: str) -> str:
    """Where a clone keeps the remote's snapshot (sync's fetch glob maps it there)."""
    return f"refs/dna/remotes/{remote}/record-index"


def manifest_message(manifest: dict[str, Any]) -> bytes:
    return canonical({k: v for k, v in manifest.items() if k != "signature"}).encode()


def sign_manifest(manifest: dict[str, Any], signer: SigningKey) -> str:
    """The signature of a manifest's fields but its signature, in base64."""
    return base64.b64encode(signer.sign(manifest_message(manifest))).decode()


def write(
    repo: pygit2.Repository, index_db: sqlite3.Connection, signer: SigningKey, now_ms: int
) -> str:
    """A snapshot commit of the index as it stands (its hex); no ref moves."""
    began = time.monotonic()
    folder = Path(repo.path) / "hale"
    copy = folder / f"{NAME}.snapshot-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        copy.unlink()
    try:
        index_db.execute("VACUUM INTO ?", (str(copy),))
        with contextlib.closing(sqlite3.connect(copy)) as db:
            last = db.execute("SELECT n, end_seq, hex FROM commits ORDER BY n DESC LIMIT 1")
            n, rows, covers = last.fetchone() or (-1, 0, "")
            with db:  # a clone that joined from it says so (`joined_from`)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot', ?)", (covers,))
        raw = copy.read_bytes()
    finally:
        with contextlib.suppress(FileNotFoundError):
            copy.unlink()
    payload = zlib.compress(raw, 1)
    manifest: dict[str, Any] = {
        "version": VERSION,
        "covers": covers,
        "commits": n + 1,
        "rows": rows,
        "sha256": hashlib.sha256(payload).hexdigest(),
        "public": keys.encode_public(signer.public),
        "made_ms": now_ms,
        "took_ms": int((time.monotonic() - began) * 1000),
    }
    manifest["signature"] = sign_manifest(manifest, signer)
    builder = repo.TreeBuilder()
    builder.insert(PAYLOAD, repo.create_blob(payload), pygit2.enums.FileMode.BLOB)
    text = json.dumps(manifest, sort_keys=True).encode()
    builder.insert(MANIFEST, repo.create_blob(text), pygit2.enums.FileMode.BLOB)
    sig = store.commit_signature("hale", 0)
    message = f"index snapshot: {rows} rows to {covers[:12]}\n"
    return str(repo.create_commit(None, sig, sig, message, builder.write(), []))


def read_manifest(
    repo: pygit2.Repository, ref: str, payload: bool = True
) -> tuple[dict[str, Any], bytes] | None:
    """(manifest, payload, or b"" unless `payload`) of the snapshot at `ref`, None
    when there is none; Refused when it is not one."""
    found = store.read_ref(repo, ref) if ref in repo.references else None
    if found is None:
        return None
    try:
        tree = repo[found].tree
        entry, told = tree[PAYLOAD], tree[MANIFEST]
        if repo.odb.read_header(entry.id)[1] > MAX_PAYLOAD:
            raise Refused("its payload is past the size a snapshot may have")
        if repo.odb.read_header(told.id)[1] > MAX_MANIFEST:
            raise Refused("its manifest is past the size a manifest may have")
        text = repo[told.id].data
        manifest = json.loads(text)
        data = repo[entry.id].data if payload else b""
    except (KeyError, ValueError, AttributeError, pygit2.GitError) as exc:
        raise Refused(f"it is not a snapshot ({type(exc).__name__})") from None
    if not isinstance(manifest, dict):
        raise Refused("its manifest is not an object")
    return manifest, data


def _field(manifest: dict[str, Any], name: str, kind: type) -> Any:
    value = manifest.get(name)
    if type(value) is not kind:
        raise Refused(f"its manifest's {name} is not a {kind.__name__}")
    return value


def verify(
    repo: pygit2.Repository, manifest: dict[str, Any], payload: bytes, tip: pygit2.Oid
) -> list[tuple[str, str | None]]:
    """The chain from its root to `covers` when the snapshot may be used (see the
    module's comment), else Refused naming why."""
    if _field(manifest, "version", str) != VERSION:
        raise Refused("it is another index version's")
    if hashlib.sha256(payload).hexdigest() != _field(manifest, "sha256", str):
        raise Refused("its payload's hash is not the one its manifest names")
    public = keys.decode_public(_field(manifest, "public", str))
    try:
        signature = base64.b64decode(_field(manifest, "signature", str), validate=True)
    except ValueError:
        raise Refused("its signature is not base64") from None
    if public is None or not keys.verify(public, signature, manifest_message(manifest)):
        raise Refused("its signature does not verify")
    covers, commits = _field(manifest, "covers", str), _field(manifest, "commits", int)
    where = store.RECORD_REF
    chain, _ = store.chain_back(repo, tip, lambda h: False, where)
    if commits < 1 or commits > len(chain) or chain[commits - 1][0] != covers:
        raise Refused(f"the commit it covers, {covers[:12]}, is not at its place in the chain")
    chain = chain[:commits]
    genesis = _genesis(repo, chain)
    if genesis != keys.fingerprint(public):
        raise Refused("it is not signed by the record's genesis key")
    return chain


def _genesis(repo: pygit2.Repository, chain: list[tuple[str, str | None]]) -> str:
    """The fingerprint of the record's genesis key, as the chain shows it: its first
    genesis row, proved by its own signature ("" when there is none). Read from
    the first commits only: every commit's rows would cost what the snapshot saves."""
    for hexid, _ in chain:
        _, content = store.commit_content(repo, pygit2.Oid(hex=hexid), store.RECORD_REF)
        if not isinstance(content, bytes):
            continue
        for match in _GENESIS.finditer(content):
            found = _proved_genesis(content, match.group().decode("utf-8", "replace"))
            if found:
                return found
    return ""


def _proved_genesis(content: bytes, line: str) -> str:
    try:
        row = decode_line(line, 0, REF)
    except RecordError:
        return ""
    if row.kind != kinds.KEY_REGISTERED or row.body.get("bound") != "genesis":
        return ""
    public = keys.decode_public(row.body.get("public", ""))
    if public is None:
        return ""
    for text in content.decode("utf-8", "replace").split("\n"):
        if f'"kind":"{signing.SIGNED}"' not in text or row.id not in text:
            continue
        with contextlib.suppress(RecordError):
            signed = decode_line(text, 0, REF)
            if signing.check(signed.body, "").fingerprint == keys.fingerprint(public):
                return keys.fingerprint(public)
    return ""


def install(
    path: Path, manifest: dict[str, Any], payload: bytes, chain: list[tuple[str, str | None]]
) -> None:
    """Inflate the payload beside the index file, check its tables against the
    chain, and put it in the index's place (Refused: nothing changes)."""
    fresh = path.with_name(f"{path.name}.joining-{os.getpid()}")
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(payload, MAX_PAYLOAD)
        if inflate.unconsumed_tail or not inflate.eof:
            raise Refused("its payload does not inflate whole within the size allowed")
        fresh.write_bytes(raw)
        _check_tables(fresh, manifest, chain)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{path}{suffix}").unlink()
        os.replace(fresh, path)
    except zlib.error:
        raise Refused("its payload does not inflate") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            fresh.unlink()


def _check_tables(
    path: Path, manifest: dict[str, Any], chain: list[tuple[str, str | None]]
) -> None:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            # no quick_check: the bytes are the signer's (their hash is signed), and
            # it reads the whole file, what a join at 10^6 rows cannot spend
            version = db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
            if version != (VERSION,):
                raise Refused("its index file is another version's")
            held = db.execute("SELECT n, hex, parent FROM commits ORDER BY n").fetchall()
            walked = [(n, h, p or "") for n, (h, p) in enumerate(chain)]
            if held != walked:
                raise Refused("its commits are not the chain's")
            end = db.execute("SELECT end_seq FROM commits ORDER BY n DESC LIMIT 1").fetchone()
            top = db.execute("SELECT count(*), coalesce(max(seq), 0) FROM rows").fetchone()
            rows = _field(manifest, "rows", int)
            if end != (rows,) or top != (rows, rows):
                raise Refused("its rows do not end where its commits do")
    except sqlite3.Error as exc:
        raise Refused(f"its index file does not open ({exc})") from None


def push(repo: pygit2.Repository, remote: str, hexid: str, timeout_s: float) -> str:
    """Push snapshot `hexid` to `remote`'s REF, replacing the one there ("" when it
    landed, else git's last line). Forced: a snapshot replaces the last, and
    every reader verifies the one it finds."""
    command = ["git", f"--git-dir={repo.path}", "push", "--quiet", "--force", remote]
    try:
        done = subprocess.run(
            [*command, f"{hexid}:{REF}"], capture_output=True, text=True, timeout=timeout_s
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["git push failed"])[-1]
    store.set_ref(repo, REF, pygit2.Oid(hex=hexid), durable=False)
    store.set_ref(repo, tracked(remote), pygit2.Oid(hex=hexid), durable=False)
    return ""


def due(repo: pygit2.Repository, remote: str, rows: int, now_ms: int) -> bool:
    """Whether a writer holding `rows` stamped rows publishes now: EVERY_ROWS past
    the remote's snapshot (as last fetched), and SPACING times its making time
    since it was made, so making snapshots takes at most 1/SPACING of a writer's
    time however long the record grows."""
    try:
        found = read_manifest(repo, tracked(remote), payload=False)
    except Refused:
        found = None
    if found is None:
        return rows >= EVERY_ROWS
    last, made, took = (found[0].get(f) for f in ("rows", "made_ms", "took_ms"))
    if not all(type(v) is int for v in (last, made, took)):
        return rows >= EVERY_ROWS
    return rows - last >= EVERY_ROWS and now_ms - made >= SPACING * took


def joined_from(index_db: sqlite3.Connection) -> str:
    """The commit the snapshot this index was installed from covers ("" when built here)."""
    found = index_db.execute("SELECT value FROM meta WHERE name = 'snapshot'").fetchone()
    return found[0] if found else ""
