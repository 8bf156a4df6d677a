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


def append_lines(root: Path, lines: list[str]) -> None:
    """One commit of raw lines on this clone's record, as a hostile writer makes it."""
    repo = pygit2.Repository(pygit2.discover_repository(str(root)))
    for _ in range(100):
        tip = store.read_ref(repo, store.RECORD_REF)
        text = "".join(f"{one}\n" for one in lines)
        oid = store.write_commit(repo, tip, text, "mallory", 1_767_225_600_000)
        if store.move_ref(repo, store.RECORD_REF, tip, oid):
            return
    raise AssertionError("the record kept moving")
