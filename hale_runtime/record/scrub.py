"""Scrubbing an erased body's text from the files hale keeps beside the record.

A protected body may have reached a plain file before its row was written:
the application's event file it was read from (`.git/hale/app/*.events`), a
log. When a redaction erases the body, each of its text values (of at least
MIN_TEXT characters, so a word like "down" never wrecks a file) is looked for
in every such file under `<gitdir>/hale`, as UTF-8 and as JSON escapes it,
and overwritten in place by as many `*` bytes: a file's length never changes,
so a reader's offset into it (the instance's place in its event file) stays
right. The databases there are left to their own erasure: memory deletes the
body with secure_delete and truncates its WAL; the index never holds one.
"""

from __future__ import annotations

import contextlib
import json
import mmap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MIN_TEXT = 6
DATABASES = (".sqlite3", ".sqlite3-wal", ".sqlite3-shm", ".index", ".index-wal", ".index-shm")


def texts_of(body: Any) -> list[str]:
    """The text values in a body (nested too) long enough to be scrubbed safely."""
    found: list[str] = []
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if len(value) >= MIN_TEXT:
                found.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def _forms(text: str) -> set[bytes]:
    """The byte forms a text takes in a file: raw UTF-8, and inside JSON strings."""
    return {
        text.encode("utf-8", "surrogatepass"),
        json.dumps(text)[1:-1].encode(),
        json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass"),
    }


def scrub(folder: Path, texts: Iterable[str]) -> list[Path]:
    """Overwrite every occurrence of `texts` in the plain files under `folder`;
    the files that held one."""
    forms = sorted({form for text in texts for form in _forms(text)}, key=len, reverse=True)
    if not forms or not folder.is_dir():
        return []
    changed = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.name.endswith(DATABASES):
            continue
        with contextlib.suppress(OSError, ValueError):
            if _scrub_file(path, forms):
                changed.append(path)
    return changed


def _scrub_file(path: Path, forms: list[bytes]) -> bool:
    if path.stat().st_size == 0:
        return False
    hit = False
    with open(path, "r+b") as handle, mmap.mmap(handle.fileno(), 0) as view:
        for form in forms:
            at = view.find(form)
            while at >= 0:
                view[at : at + len(form)] = b"*" * len(form)
                hit = True
                at = view.find(form, at + len(form))
        if hit:
            view.flush()
    return hit
