"""Re-parsing only the items an edit touched.

An editor sends a module's whole text at every keystroke. Parsing 1,000
lines costs tens of milliseconds, checking them a few, so the language
server parses a text in chunks: it is cut before every line that starts,
at bracket depth 0 (strings and comments aside), with `import`, `const`,
`struct`, `fn` or `host`, and each chunk is parsed alone, preceded by as
many newlines as lines lie above it, so its spans are the file's.

Chunk trees are kept by their text, for the latest text of each module: a
chunk met again is reused as it is when it starts on the same line, or
with every span moved by the lines it moved (a walk over its nodes, some
twenty times cheaper than parsing them). Hale's grammar is a sequence of
items and unambiguous, so when every chunk parses, their items in order
are the tree of the whole text. When one does not, or the brackets do not
balance, the whole text is parsed, and its syntax errors are the ones
`hale check` reports.
"""

from __future__ import annotations

import re

from .. import nodes as n
from ..diagnostics import Span
from ..parser import parse

_NOISE = re.compile(r'"(?:\\.|[^"\\\n])*"?|//[^\n]*')  # strings and comments
_ITEM = re.compile(r"[ \t]*(?:import|const|struct|fn|host)(?![A-Za-z0-9_])")
_OPEN, _CLOSE = "{([", "})]"

Chunk = tuple[int, list[n.Item], list[n.Comment]]  # (first line, items, comments)


_CUTS = re.compile(r"[{(\[]|[})\]]|^[ \t]*(?:import|const|struct|fn|host)(?![A-Za-z0-9_])", re.M)


def chunks(text: str) -> list[tuple[int, str]] | None:
    """(first line, text) of each chunk, or None when brackets don't balance
    (or a closing one comes first). One scan of the text without its
    strings and comments, which hold no newline, so lines keep their numbers."""
    clean = _NOISE.sub("", text)
    starts, depth, line, last = [0], 0, 0, 0
    for m in _CUTS.finditer(clean):
        c = clean[m.start()]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:
            line += clean.count("\n", last, m.start())
            last = m.start()
            if line:
                starts.append(line)
    if depth != 0:
        return None
    lines = text.split("\n")
    starts.append(len(lines))
    return [
        (a + 1, "\n".join(lines[a:b]) + ("\n" if b < len(lines) else ""))
        for a, b in zip(starts, starts[1:], strict=False)
    ]


class Reparser:
    """Parses each module's texts in chunks, keeping the latest chunks' trees."""

    def __init__(self) -> None:
        self._kept: dict[str, dict[str, Chunk]] = {}

    def parse(self, text: str, path: str) -> n.Module:
        pieces = chunks(text)
        if pieces is None:
            return parse(text, path)
        kept = self._kept.get(path, {})
        plan: list[tuple[str, Chunk, int]] = []
        for line, piece in pieces:
            chunk = kept.get(piece)
            if chunk is None or any(p == piece for p, _, _ in plan):
                plan.append((piece, _parse_chunk(piece, line, path), 0))  # may raise
            else:
                plan.append((piece, chunk, line - chunk[0]))
        # every chunk parsed: only now move the kept ones (a failed parse moves nothing)
        now: dict[str, Chunk] = {}
        items: list[n.Item] = []
        comments: list[n.Comment] = []
        for piece, (line, its, notes), delta in plan:
            if delta:
                _shift_all((*its, *notes), delta, set())
            now[piece] = (line + delta, its, notes)
            items += its
            comments += notes
        self._kept[path] = now
        return n.Module(path, items, comments)

    def forget(self, path: str) -> None:
        self._kept.pop(path, None)


def _parse_chunk(piece: str, line: int, path: str) -> Chunk:
    module = parse("\n" * (line - 1) + piece, path)
    return line, module.items, module.comments


def _shift(node: object, delta: int, seen: set[int]) -> None:
    """Move every span under a syntax node by `delta` lines, in place, once
    per node (`x += 1` holds its target twice)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    for slot in _slots(type(node)):
        value = getattr(node, slot)
        kind = type(value)
        if kind is Span:
            v = value
            setattr(node, slot, Span(v.path, v.line + delta, v.col, v.end_line + delta, v.end_col))
        elif kind is list or kind is tuple:
            _shift_all(value, delta, seen)
        elif kind in _NODES:
            _shift(value, delta, seen)


def _shift_all(values: list | tuple, delta: int, seen: set[int]) -> None:
    for x in values:
        kind = type(x)
        if kind is tuple or kind is list:
            _shift_all(x, delta, seen)
        elif kind in _NODES:
            _shift(x, delta, seen)


# every syntax node class that can hold a span (types and refs hold none)
_NODES = frozenset(
    c
    for c in vars(n).values()
    if isinstance(c, type) and c.__module__ == n.__name__ and c is not n.Ref
)
_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    found = _SLOTS.get(cls)
    if found is None:
        found = _SLOTS[cls] = tuple(cls.__dataclass_fields__)
    return found
