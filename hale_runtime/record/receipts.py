"""Receipts: JSON documents kept as blobs under `refs/dna/receipts/<sha256>`.

A receipt is stored as its canonical JSON (sorted keys, no spaces, UTF-8);
the sha256 of those bytes names the ref, so writing the same receipt twice is
one receipt and `git cat-file -p refs/dna/receipts/<sha>` prints it. Reading
checks the digest, so a foreign object under that name is reported, not
trusted. Durable (the default): the blob and the new ref are fsync'd before
`put_receipt` returns, as a record append is.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pygit2

from hale_runtime.record import loose, store
from hale_runtime.record.errors import RecordError
from hale_runtime.record.row import canonical

PREFIX = "refs/dna/receipts/"
_DIGEST = re.compile(r"[0-9a-f]{64}")


def put_receipt(repo: pygit2.Repository, document: dict[str, Any], durable: bool = True) -> str:
    """Write `document` as a receipt and return its digest."""
    if not isinstance(document, dict):
        raise ValueError("a receipt is a JSON object")
    data = canonical(document).encode()
    digest = hashlib.sha256(data).hexdigest()
    name = PREFIX + digest
    blob = store.write_blob(repo, data, durable)
    try:
        repo.references.create(name, blob, force=False)
        if durable:
            loose.sync_ref(repo, name)
    except pygit2.AlreadyExistsError:
        get_receipt(repo, digest)  # already there: make sure it is what it says
    return digest


def get_receipt(repo: pygit2.Repository, digest: str) -> dict[str, Any]:
    """The receipt named by `digest`, checked against it."""
    name = PREFIX + digest
    if not _DIGEST.fullmatch(digest):
        raise RecordError(f"{name} is not a receipt name (a sha256 in hex)")
    try:
        ref = repo.references.get(name)
    except (pygit2.GitError, ValueError) as exc:
        raise RecordError(f"{name} is damaged: {exc}") from exc
    if ref is None:
        raise RecordError(f"{name}: no such receipt in this clone")
    obj = repo.get(ref.target)
    if obj is None or obj.type != pygit2.enums.ObjectType.BLOB:
        raise RecordError(f"{name} holds a foreign object, not a receipt blob")
    data = obj.data
    if hashlib.sha256(data).hexdigest() != digest:
        raise RecordError(f"{name} holds a blob whose digest is not its name")
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise RecordError(f"{name} is not JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise RecordError(f"{name} is not a JSON object")
    return document


def receipt_refs(repo: pygit2.Repository) -> list[str]:
    """Every receipt ref this clone holds."""
    try:
        return sorted(n for n in repo.references if n.startswith(PREFIX))
    except (pygit2.GitError, ValueError) as exc:
        raise RecordError(f"{PREFIX} holds a damaged ref: {exc}") from exc


def list_receipts(repo: pygit2.Repository) -> list[str]:
    """Every receipt digest this clone holds."""
    return [name[len(PREFIX) :] for name in receipt_refs(repo)]
