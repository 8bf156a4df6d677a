"""Completion: what may be written at a position, with its type.

While an author types, the text rarely parses, so completion reads the
current text only around the cursor and takes meaning from the genome's
last check:

- after `alias::`, the items of the module the alias imports;
- after `receiver.`, the receiver's fields and methods. Its type comes from
  the checker itself: the text is patched so that it parses (the `.` and
  the partial name dropped, or the rest of the line replaced by `;`), the
  patched module is checked against the genome's tables (on a copy, so
  nothing is changed), and the expression ending at the `.` gives its
  type. When no patch parses, an expression with the same source text in
  the module's last check stands in;
- anywhere else, the variables in scope (from the last check), the
  module's items and imports, the prelude's functions, the builtin types
  and the keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..checker import check_module
from ..diagnostics import HaleError
from ..highlight import KEYWORDS
from ..natives import METHODS, PRELUDE_FNS, SIGS
from ..parser import parse
from ..resolver import GENERICS, Sym
from ..types import JSON, PRIMITIVES, STRING, HostType, ListType, MapType, StructType, Type
from .analysis import Genome
from .index import Source, expressions
from .navigate import native_signature

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Completion:
    label: str
    kind: str  # variable, fn, hostfn, struct, hosttype, const, module, field, method, type, keyword
    detail: str = ""


def complete(genome: Genome, path: str, text: str, line: int, col: int) -> list[Completion]:
    """What may be written at (line, col) of `text`, the module's current text."""
    src = Source(text, path)
    cursor = src.offset(line, col)
    partial = _IDENT.search(text, max(0, cursor - 200), cursor)
    start = partial.start() if partial else cursor
    if text[max(0, start - 2) : start] == "::":
        alias = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", text[max(0, start - 200) : start - 2])
        return _members_of_module(genome, path, alias.group(1)) if alias else []
    if text[max(0, start - 1) : start] == ".":
        t = receiver_type(genome, path, text, start - 1)
        return members(genome, t) if t is not None else []
    return _in_scope(genome, path, line, col)


def _members_of_module(genome: Genome, path: str, alias: str) -> list[Completion]:
    target = genome.imports.get(path, {}).get(alias)
    env = genome.envs.get(target) if target else None
    if env is None:
        return []
    return [_item(s) for s in env.items.values() if s.kind != "alias"]


def _item(sym: Sym) -> Completion:
    if sym.kind in ("fn", "hostfn"):
        return Completion(sym.name, sym.kind, _signature(sym))
    if sym.kind == "const":
        return Completion(sym.name, "const", str(sym.type) if sym.type is not None else "")
    return Completion(sym.name, sym.kind, sym.kind.replace("host", "host "))


def _signature(sym: Sym) -> str:
    names = [p.name for p in sym.node.params]
    params = ", ".join(f"{a}: {t}" for a, t in zip(names, sym.params, strict=False))
    return f"fn({params}) -> {sym.ret}"


def members(genome: Genome, t: Type) -> list[Completion]:
    """The fields and methods of a value of type `t`."""
    if isinstance(t, StructType | HostType):
        env = genome.envs.get(t.module)
        sym = env.items.get(t.name) if env is not None else None
        if sym is None:
            return []
        if isinstance(t, HostType):
            return [Completion(m, "method", _signature(s)) for m, s in sym.fields.items()]
        return [Completion(f, "field", str(ft)) for f, ft in sym.fields.items()]
    owner = _native_owner(t)
    return [
        Completion(m, "method", native_signature(SIGS[f"{owner}.{m}"][0]))
        for m in METHODS.get(owner, ())
    ]


def _native_owner(t: Type) -> str:
    if isinstance(t, ListType):
        return "List"
    if isinstance(t, MapType):
        return "Map"
    if t is STRING or t is JSON:
        return str(t)
    return ""


def _in_scope(genome: Genome, path: str, line: int, col: int) -> list[Completion]:
    out: list[Completion] = []
    index = genome.index(path)
    if index is not None:
        out += [Completion(v.name, "variable", str(v.ty)) for v in index.locals_at(line, col)]
    env = genome.envs.get(path)
    if env is not None:
        for sym in env.items.values():
            if sym.kind == "alias":
                out.append(Completion(sym.name, "module", env.aliases.get(sym.name) or ""))
            else:
                out.append(_item(sym))
    out += [Completion(f, "fn", native_signature(SIGS[f][0])) for f in PRELUDE_FNS]
    out += [Completion(t, "type", "builtin type") for t in (*PRIMITIVES, *GENERICS)]
    out += [Completion(k, "keyword") for k in sorted(KEYWORDS)]
    return out


# --- the type of a receiver --------------------------------------------------------------


def receiver_type(genome: Genome, path: str, text: str, dot: int) -> Type | None:
    """The type of the expression ending just before the `.` at offset `dot`."""
    start = receiver_start(text, dot)
    if start == dot:
        return None
    src = Source(text, path)
    want = (src.position(start), src.position(dot))
    for patched in _patches(text, dot):
        try:
            module = parse(patched, path)
        except HaleError:
            continue
        check_module(module, genome.imports.get(path, {}), dict(genome.envs))
        for e in expressions(module):
            if ((e.span.line, e.span.col), (e.span.end_line, e.span.end_col)) == want:
                return e.ty
    return _same_text(genome, path, text[start:dot], want[0][0])


def _patches(text: str, dot: int) -> list[str]:
    after = re.match(r"\.[A-Za-z0-9_]*", text[dot:])
    end = dot + (after.end() if after else 1)
    eol = text.find("\n", dot)
    eol = len(text) if eol < 0 else eol
    return [text[:dot] + text[end:], text[:dot] + ";" + text[eol:]]


def _same_text(genome: Genome, path: str, receiver: str, line: int) -> Type | None:
    """An expression of the last check spelled as the receiver, nearest the line."""
    checked, index = genome.checked.get(path), genome.index(path)
    if checked is None or index is None:
        return None
    found = [
        e
        for e in expressions(checked.module)
        if e.ty is not None and index.source.slice(e.span) == receiver
    ]
    found.sort(key=lambda e: abs(e.span.line - line))
    return found[0].ty if found else None


_CLOSE = {")": "(", "]": "["}


def receiver_start(text: str, dot: int) -> int:
    """Where the receiver ending at `dot` starts: a chain of names, `::`,
    `.`, calls, indexes and a string literal, scanned backwards."""
    i = dot
    while i > 0:
        c = text[i - 1]
        if c.isalnum() or c == "_":
            i -= 1
        elif c in _CLOSE:
            i = _opening(text, i - 1, c)
            if i < 0:
                return dot
        elif c == '"':
            i = text.rfind('"', 0, i - 1)
            if i < 0:
                return dot
        elif c == "." or (c == ":" and text[i - 2 : i] == "::"):
            i -= 1 if c == "." else 2
        else:
            break
    return i


def _opening(text: str, close: int, c: str) -> int:
    depth, i = 0, close
    while i >= 0:
        if text[i] == c:
            depth += 1
        elif text[i] == _CLOSE[c]:
            depth -= 1
            if depth == 0:
                return i
        i -= 1
    return -1
