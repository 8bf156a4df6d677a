"""A hostile clone: rows written into a record past its door, as raw lines.

Any clone can push any commit to `refs/dna/record`, so the tests write what
such a clone would: lines whose id is right for their content (the record
verifies ids) but whose kind, key or body hale would never write, and
lines that are no row at all.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pygit2

from hale_runtime.record import store
from hale_runtime.record.row import read_line

MALLORY = "mallory@elsewhere:0badc0de"


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def line(kind: Any, key: Any, body: Any, at: Any = 1_767_225_600_000, who: Any = MALLORY,
         clone: Any = "0badc0de") -> str:  # fmt: skip
    """A stored row line with its id computed, whatever its fields hold."""
    head = f'{{"at":{_text(at)},"body":{_text(body)},"clone":{_text(clone)}'
    tail = f'"key":{_text(key)},"kind":{_text(kind)},"who":{_text(who)}}}'
    digest = hashlib.sha256(f"{head},{tail}".encode("utf-8", "surrogatepass")).hexdigest()
    return f'{head},"id":"{digest}",{tail}'


def row_id(text: str) -> str:
    """The id the record gives a line: its own when it is a row, else its digest."""
    return read_line(text, 0, store.RECORD_REF).id


ORG = "org@hostile:0badc0de"  # the identity the session's key proves (tests/conftest.py)


def append_lines(root: Path, lines: list[str], signed: bool = False) -> None:
    """One commit of raw lines on this clone's record, as a hostile writer makes it.
    `signed`: first a signature row over them by the session's key, bound to the
    record, so a row naming `ORG` is proven the organization's and only what it
    says is judged (the key a node of the tests signs with; issue 29)."""
    if signed:
        lines = [_signature(root, lines), *lines]
    repo = pygit2.Repository(pygit2.discover_repository(str(root)))
    for _ in range(100):
        tip = store.read_ref(repo, store.RECORD_REF)
        text = "".join(f"{one}\n" for one in lines)
        oid = store.write_commit(repo, tip, text, "mallory", 1_767_225_600_000)
        if store.move_ref(repo, store.RECORD_REF, tip, oid):
            return
    raise AssertionError("the record kept moving")


def _signature(root: Path, lines: list[str]) -> str:
    from hale_runtime.record import Record, keys
    from hale_runtime.record.signing import key_of, signature_body

    key = keys.user_key()
    body = signature_body(key, Record.open(root).trust.record, [row_id(one) for one in lines])
    return line("row.signed", key_of(key.fingerprint), body, who=ORG)


# ---- commits of shapes hale never writes -------------------------------------------------

SIG = pygit2.Signature("mallory", "mallory@elsewhere", 1_767_225_600, 0)
GOOD = line("note.made", "foreign/good", {"n": 1})  # a row that fits, wherever it is put


def tree_of(repo: pygit2.Repository, entries: dict[str, bytes | pygit2.Oid]) -> pygit2.Oid:
    """A tree of blobs (bytes) and trees (an Oid of one)."""
    builder = repo.TreeBuilder()
    for name, value in entries.items():
        if isinstance(value, bytes):
            builder.insert(name, repo.create_blob(value), pygit2.enums.FileMode.BLOB)
        else:
            builder.insert(name, value, pygit2.enums.FileMode.TREE)
    return builder.write()


def commit_of(repo: pygit2.Repository, tree: pygit2.Oid, parents: list) -> pygit2.Oid:
    return repo.create_commit(None, SIG, SIG, "not hale's\n", tree, parents)


def raw_commit(repo: pygit2.Repository, tree: pygit2.Oid, parent: pygit2.Oid) -> pygit2.Oid:
    """A commit whose parent line names `parent` whatever it is (libgit2 checks; git does not)."""
    stamp = b"mallory <mallory@elsewhere> 1767225600 +0000"
    body = b"tree %s\nparent %s\nauthor %s\ncommitter %s\n\nnot hale's\n" % (
        str(tree).encode(), str(parent).encode(), stamp, stamp)  # fmt: skip
    return repo.odb.write(pygit2.enums.ObjectType.COMMIT, body)


def rows_tree(text: str) -> dict[str, bytes | pygit2.Oid]:
    return {"rows.jsonl": text.encode()}


def _shapes() -> dict[str, Any]:
    """name -> (repo, tip) -> a commit of that shape on `tip` (None: a root), and
    whether the record reads it as foreign (one placeholder) rather than as rows."""
    good = f"{GOOD}\n"

    def merge(repo, tip):
        other = commit_of(repo, tree_of(repo, rows_tree(line("x.y", "side", {}) + "\n")), [])
        return commit_of(repo, tree_of(repo, rows_tree(good)), [p for p in (tip, other) if p])

    def parent_not_a_commit(repo, tip):
        return raw_commit(repo, tree_of(repo, rows_tree(good)), repo.create_blob(b"no commit"))

    return {
        "merge": (merge, True),
        "other entries": (lambda r, t: on_tip(r, t, {**rows_tree(good), "x.txt": b"x"}), True),
        "no rows.jsonl": (lambda r, t: on_tip(r, t, {"notes.txt": good.encode()}), True),
        "rows.jsonl a tree": (
            lambda r, t: on_tip(r, t, {"rows.jsonl": tree_of(r, {"a": b"a"})}), True),
        "empty tree": (lambda r, t: on_tip(r, t, {}), True),
        "huge blob": (lambda r, t: on_tip(r, t, {"rows.jsonl": b"x" * (store.MAX_BLOB + 1)}), True),
        "parent not a commit": (parent_not_a_commit, True),
        "not UTF-8": (lambda r, t: on_tip(r, t, {"rows.jsonl": good.encode() + b"\xff\xfe\n"}), False),
        "no last newline": (lambda r, t: on_tip(r, t, {"rows.jsonl": GOOD.encode()}), False),
        "no rows": (lambda r, t: on_tip(r, t, {"rows.jsonl": b""}), False),
    }  # fmt: skip


def on_tip(repo, tip, entries):
    return commit_of(repo, tree_of(repo, entries), [tip] if tip else [])


SHAPES = _shapes()


def push_foreign(root: Path, shape: str) -> pygit2.Oid:
    """A commit of `shape` on this clone's record tip, the ref moved to it."""
    repo = pygit2.Repository(pygit2.discover_repository(str(root)))
    tip = store.read_ref(repo, store.RECORD_REF)
    oid = SHAPES[shape][0](repo, tip)
    assert store.move_ref(repo, store.RECORD_REF, tip, oid)
    return oid
