"""A row, its canonical form and its id.

A row is stored as one line of canonical JSON (sorted keys, no spaces, UTF-8).
Its id is the SHA-256 of the canonical JSON of its content (every field but
`id`), so the same row written twice, or received twice by sync, is one row.
Because the stored line is canonical, the content is the line with its `id`
member cut out: decoding verifies an id by hashing that slice, with no
re-encoding.
"""

from __future__ import annotations

import hashlib
import json
import re
from json.encoder import c_make_encoder, encode_basestring
from typing import Any, NamedTuple

from hale_runtime.record import bounds, kinds
from hale_runtime.record.errors import RecordError, RowRefused

FIELDS = ("at", "body", "clone", "id", "key", "kind", "who")
MAX_LINE = (
    bounds.MAX_LINE
)  # characters of one stored row: a longer one is refused, or read as unreadable
# a NUL, or half of a surrogate pair, escaped in the JSON (an even run of backslashes before
# it is text, not an escape): memory and the nerves cannot carry either, so no row holds one
_UNCARRIED = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def uncarried(text: str) -> bool:
    """Whether JSON text escapes a NUL or a surrogate (which no store here can hold)."""
    return "\\u" in text and _UNCARRIED.search(text) is not None


_FIELD_SET = frozenset(FIELDS)


def _not_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


# json's C encoder, built once: sorted keys, "," and ":", non-ASCII kept, no NaN
_ENCODE = c_make_encoder(None, _not_json, encode_basestring, None, ":", ",", True, False, False)


def canonical(value: Any) -> str:
    """Sorted keys, no spaces, non-ASCII kept: the one text a value has."""
    try:
        return "".join(_ENCODE(value, 0))
    except RecursionError as exc:
        raise ValueError("a value that contains itself is not JSON") from exc


class Row(NamedTuple):
    """One fact in the record. `seq` is its 1-based place in this clone's chain."""

    kind: str
    key: str
    body: dict[str, Any]
    who: str
    at: int
    clone: str
    id: str
    seq: int = 0

    def as_json(self) -> dict[str, Any]:
        """The row as a plain object (for `--json` and for scripts)."""
        return {
            "seq": self.seq,
            "id": self.id,
            "kind": self.kind,
            "key": self.key,
            "body": self.body,
            "who": self.who,
            "at": self.at,
            "clone": self.clone,
        }


_new = tuple.__new__  # builds a Row from a full tuple, skipping NamedTuple's argument parsing
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _parts(kind: str, key: str, body_json: str, who: str, at: int, clone: str) -> tuple[str, str]:
    """(content, line-after-id): the canonical text around the `id` member."""
    text = encode_basestring  # a str's canonical JSON, non-ASCII kept
    head = f'{{"at":{at},"body":{body_json},"clone":{text(clone)}'
    tail = f'"key":{text(key)},"kind":{text(kind)},"who":{text(who)}}}'
    return head, tail


def make_row(kind: str, key: str, body: dict[str, Any], who: str, at: int, clone: str) -> Row:
    """A new row, its body normalised through JSON and its id computed."""
    return new_row(kind, key, body, who, at, clone)[0]


def new_row(
    kind: str,
    key: str,
    body: dict[str, Any],
    who: str,
    at: int,
    clone: str,
    checked: bool = False,
) -> tuple[Row, str]:
    """(a new row with seq 0, its stored line), computed together so JSON is encoded once;
    RowRefused, naming the kind and why, when it does not fit its kind (record/kinds.py).
    A writer that checked the row already (`checked`: the engine checks each row as it
    decides it, and the record its writer once a batch) is not checked twice."""
    why = "" if checked else kinds.check_row(kind, key, body, who, at, clone)
    if why:
        raise RowRefused(f"a {kinds.shown(kind)} row is refused: {why}")
    flat = True
    for name, value in body.items():
        if type(name) is not str:
            raise RowRefused(f"a row's body has text keys, not {name!r}")
        if type(value) not in _SCALARS:
            flat = False
    try:
        body_json = canonical(body)
    except (TypeError, ValueError) as exc:
        raise RowRefused(f"a row's body must be JSON: {exc}") from exc
    if uncarried(body_json):
        raise RowRefused("a row's text holds no NUL character")
    # the row keeps its own copy, exactly as a reader will decode it
    copy = dict(body) if flat else json.loads(body_json)
    head = f'{{"at":{at},"body":{body_json},"clone":{encode_basestring(clone)}'
    tail = (
        f'"key":{encode_basestring(key)},"kind":{encode_basestring(kind)},'
        f'"who":{encode_basestring(who)}}}'
    )
    if len(head) + len(tail) > MAX_LINE:
        raise RowRefused(f"a row is at most {MAX_LINE} characters as stored")
    try:
        digest = hashlib.sha256(f"{head},{tail}".encode()).hexdigest()
    except UnicodeEncodeError as exc:
        raise RowRefused(f"a row is UTF-8 text, and this one has {exc.reason}") from exc
    return _new(Row, (kind, key, copy, who, at, clone, digest, 0)), f'{head},"id":"{digest}",{tail}'


def encode_line(row: Row) -> str:
    """The row's stored line (canonical JSON of all its fields but `seq`)."""
    head, tail = _parts(row.kind, row.key, canonical(row.body), row.who, row.at, row.clone)
    return f'{head},"id":"{row.id}",{tail}'


def decode_line(line: str, seq: int, where: str) -> Row:
    """A stored line back to a Row, its id verified; `where` names the ref for errors."""
    if len(line) > MAX_LINE:
        raise RecordError(f"{where}: a row is longer than {MAX_LINE} characters")
    if uncarried(line):
        raise RecordError(f"{where}: a row holds a NUL or half a surrogate pair")
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"{where}: a row is not JSON ({exc})") from exc
    if not isinstance(obj, dict) or obj.keys() != _FIELD_SET:
        raise RecordError(f"{where}: a row does not have the record's fields")
    digest = obj["id"]
    marker = f',"id":"{digest}",' if isinstance(digest, str) else None
    cut = line.rfind(marker) if marker else -1
    content = line[:cut] + "," + line[cut + len(marker) :] if cut >= 0 else ""
    if cut < 0 or hashlib.sha256(content.encode()).hexdigest() != digest:
        raise RecordError(f"{where}: a row's id does not match its content")
    kind, key, body, who, at, clone = (
        obj[f] for f in ("kind", "key", "body", "who", "at", "clone")
    )
    if type(body) is not dict or type(at) is not int:
        raise RecordError(f"{where}: a row's body is not an object or its time not a number")
    if not bounds.at_fits(at):  # no store could hold it: every reader quarantines it alike
        raise RecordError(f"{where}: a row's time {at} is outside what the record's stores hold")
    if not all(type(text) is str for text in (kind, key, who, clone)):
        raise RecordError(f"{where}: a row's kind, key, who or clone is not text")
    return Row(kind, key, body, who, at, clone, digest, seq)


def read_line(line: str, seq: int, where: str) -> Row:
    """`decode_line`, except that a line which is no row is read as a `row.unreadable`
    row (its id the SHA-256 of the line): a foreign line is poison, never fatal."""
    try:
        return decode_line(line, seq, where)
    except RecordError as error:
        digest = hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()
        why = str(error).removeprefix(f"{where}: ")
        return unreadable(digest, why, line[:200], seq)


def unreadable(digest: str, why: str, shown: str, seq: int = 0) -> Row:
    """The `row.unreadable` row the record reads in place of what is no row."""
    return Row(kinds.ROW_UNREADABLE, "", {"why": why, "line": shown}, "", 0, "", digest, seq)


def rows_in(hexid: str, content: bytes | str, where: str) -> list[Row]:
    """The rows of one commit of the chain, each with seq 0: its lines read one by
    one (a line that is no row, or no UTF-8 text, is a `row.unreadable` row), or,
    for a commit whose shape is foreign (`content` says why: store.commit_content),
    one `row.unreadable` row named by the commit, so it is quarantined once."""
    if isinstance(content, str):
        digest = hashlib.sha256(f"commit {hexid}".encode()).hexdigest()
        return [unreadable(digest, f"commit {hexid} is foreign: {content}", "")]
    try:
        lines = content.decode().split("\n")  # not splitlines: JSON leaves U+2028 raw
    except UnicodeDecodeError:
        return [_read_bytes(line, where) for line in _without_end(content.split(b"\n"))]
    return [read_line(line, 0, where) for line in _without_end(lines)]


def _without_end(lines: list) -> list:
    """The lines of a text split at each newline: a last, empty one is the end's."""
    return lines[:-1] if lines and not lines[-1] else lines


def _read_bytes(line: bytes, where: str) -> Row:
    try:
        return read_line(line.decode(), 0, where)
    except UnicodeDecodeError:
        shown = line[:200].decode(errors="replace")
        return unreadable(hashlib.sha256(line).hexdigest(), "a row is not UTF-8 text", shown)
