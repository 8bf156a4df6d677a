"""Rename, signature help and workspace symbols over a checked genome.

Rename starts, as navigate.py does, from the name under the cursor and its
key (index.py): every occurrence of that key is rewritten, in the edited
module alone for a local or an import alias, in every module of the genome
for an item or a member, whichever module the use is in. It refuses what
the author cannot rename from here (a prelude name, a builtin type, a
module path, anything declared outside the genome root: the standard
library, a vendored module), a new name that is not an identifier or is a
keyword, and one that would collide with a name already declared where the
renamed one lives (an item of the same module, a member of the same type,
a local of the same function).

Signature help reads the text, not the tree, since a call being typed
seldom parses: from the cursor back to the `(` left open, counting the
commas at that depth (strings skipped) for the active parameter, then the
callee's name before the `(`: `f`, `alias::f`, or `.method`. The callee is
looked up in the module's table as last checked (a fn or host fn), through
an import alias, among the prelude's natives, or among the methods of the
host types the module can see.

Workspace symbols are every item of every checked module, and each
struct's fields and host type's methods, whose name holds the query's
letters in order (case-insensitive), as editors' fuzzy pickers expect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import nodes as n
from ..diagnostics import Span
from ..highlight import KEYWORDS
from ..loader import STD_PREFIX
from ..natives import SIGS
from ..resolver import Sym
from .analysis import Genome
from .index import name_span
from .navigate import native_signature, occurrence

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class RenameRefused(Exception):
    """A rename that cannot be done; the message says why, in one line."""


# --- rename ---------------------------------------------------------------------------


def prepare_rename(genome: Genome, path: str, line: int, col: int) -> tuple[Span, str]:
    """The span of the name at the position and its text, or RenameRefused."""
    occ = occurrence(genome, path, line, col)
    if occ is None:
        raise RenameRefused("no name to rename here")
    _renamable(genome, occ.key)
    name = occ.key[3] if occ.key[0] in ("local", "member") else occ.key[2]
    return occ.span, name


def rename(genome: Genome, path: str, line: int, col: int, new: str) -> dict[str, list[Span]]:
    """Every span to rewrite as `new`, by module; RenameRefused when it cannot."""
    span, old = prepare_rename(genome, path, line, col)
    occ = occurrence(genome, path, line, col)
    key = occ.key
    if not _IDENT.match(new) or new in KEYWORDS:
        raise RenameRefused(f"`{new}` is not a name Hale accepts")
    if new == old:
        return {}
    _collision(genome, key, new)
    where = [path] if key[0] in ("local", "alias") else None
    out: dict[str, list[Span]] = {}
    for index in genome.indexes(where):
        for o in index.uses(key):
            out.setdefault(index.module.path, []).append(o.span)
    return out


def _renamable(genome: Genome, key: tuple) -> None:
    kind = key[0]
    if kind == "native":
        raise RenameRefused(f"`{key[1]}` is the prelude's; it cannot be renamed")
    if kind in ("type", "module"):
        raise RenameRefused("a builtin type or a module path cannot be renamed here")
    module = key[1]
    if module.startswith((STD_PREFIX, "vendor/")):
        raise RenameRefused(f"`{module}` is the toolchain's; it cannot be renamed from here")


def _collision(genome: Genome, key: tuple, new: str) -> None:
    kind, module = key[0], key[1]
    env = genome.envs.get(module)
    if env is None:
        return
    if kind in ("item", "alias") and new in env.items:
        raise RenameRefused(f"`{module}` already declares `{new}`")
    if kind == "member":
        sym = env.items.get(key[2])
        if sym is not None and new in sym.fields:
            raise RenameRefused(f"`{key[2]}` already has a member `{new}`")
    if kind == "local":
        index = genome.index(module)
        if index is not None and any(v.fn == key[2] and v.name == new for v in index.locals):
            raise RenameRefused(f"`{key[2]}` already has a variable `{new}`")


# --- signature help -------------------------------------------------------------------


@dataclass
class Signature:
    label: str
    params: list[tuple[int, int]]  # each parameter's [start, end) in the label
    active: int
    doc: str = ""


def open_call(text: str, offset: int) -> tuple[str, int] | None:
    """(the callee's text before the open `(`, the index of the argument
    the offset is in), or None outside every call."""
    depth, commas, i = 0, 0, offset - 1
    # strings on the line before the cursor are skipped by blanking them
    blank = re.sub(r'"(?:[^"\\\n]|\\.)*"?', lambda m: " " * len(m.group()), text[:offset])
    while i >= 0:
        c = blank[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                if c != "(":
                    return None
                m = re.search(r"((?:[A-Za-z_]\w*\s*::\s*)?\.?\s*[A-Za-z_]\w*)\s*\Z", blank[:i])
                return (re.sub(r"\s+", "", m.group(1)), commas) if m else None
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
        elif c == ";" and depth == 0:
            return None
        i -= 1
    return None


def signature_help(genome: Genome, path: str, text: str, line: int, col: int) -> list[Signature]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    offset = starts[min(line, len(starts)) - 1] + col - 1
    found = open_call(text, offset)
    if found is None:
        return []
    callee, active = found
    env = genome.envs.get(path)
    out: list[Signature] = []
    if callee.startswith("."):
        out += _methods(genome, path, callee[1:])
    elif "::" in callee:
        alias, name = callee.split("::")
        target = _aliases(genome, path, text).get(alias)
        sym = genome.envs[target].items.get(name) if target in genome.envs else None
        if sym is not None and sym.kind in ("fn", "hostfn"):
            out.append(_of_sym(sym, f"{alias}::{name}"))
    else:
        sym = env.items.get(callee) if env is not None else None
        if sym is not None and sym.kind in ("fn", "hostfn"):
            out.append(_of_sym(sym, callee))
        elif sym is not None and sym.kind == "struct":
            return []
        for sig in SIGS.get(callee, ()):
            out.append(_of_text(native_signature(sig)))
    for s in out:
        s.active = min(active, max(len(s.params) - 1, 0))
    return out


_IMPORT = re.compile(r'^\s*import\s+"([^"]+)"\s+as\s+([A-Za-z_]\w*)\s*;', re.M)


def _aliases(genome: Genome, path: str, text: str) -> dict[str, str]:
    """The module's import aliases: as last checked, or read off the text
    while the module has never parsed."""
    env = genome.envs.get(path)
    if env is not None and env.aliases:
        return {a: t for a, t in env.aliases.items() if t is not None}
    out = {}
    for m in _IMPORT.finditer(text):
        for candidate in (f"{m.group(1)}.hl", f"{m.group(1)}/mod.hl"):
            if candidate in genome.envs:
                out[m.group(2)] = candidate
    return out


def _of_sym(sym: Sym, shown: str) -> Signature:
    node = sym.node
    parts = [f"{p.name}: {t}" for p, t in zip(node.params, sym.params, strict=False)]
    ret = "" if sym.ret is None or str(sym.ret) == "Void" else f" -> {sym.ret}"
    return _of_parts(f"fn {shown}(", parts, f"){ret}")


def _of_parts(head: str, parts: list[str], tail: str) -> Signature:
    spans, pos = [], len(head)
    for i, part in enumerate(parts):
        spans.append((pos, pos + len(part)))
        pos += len(part) + (2 if i + 1 < len(parts) else 0)
    return Signature(head + ", ".join(parts) + tail, spans, 0)


def _of_text(sig: str) -> Signature:
    """A native's `name(A, B) -> R`, split at its top-level commas."""
    open_at = sig.index("(")
    close = sig.rindex(")")
    inner, parts, depth, start = sig[open_at + 1 : close], [], 0, 0
    for i, c in enumerate(inner):
        depth += c == "<"
        depth -= c == ">"
        if c == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    if inner.strip():
        parts.append(inner[start:].strip())
    return _of_parts(sig[: open_at + 1], parts, sig[close:])


def _methods(genome: Genome, path: str, name: str) -> list[Signature]:
    out = [
        _of_text(native_signature(sig))
        for full, sigs in SIGS.items()
        if full.endswith("." + name)
        for sig in sigs
    ]
    seen = {path, *genome.imports.get(path, {}).values()}
    for module in sorted(seen):
        env = genome.envs.get(module)
        for sym in env.items.values() if env is not None else ():
            if sym.kind == "hosttype" and name in sym.fields:
                out.append(_of_sym(sym.fields[name], f"{sym.name}.{name}"))
    return out


# --- workspace symbols ----------------------------------------------------------------


@dataclass
class Found:
    name: str
    kind: str  # fn, hostfn, struct, hosttype, const, field, method
    span: Span
    container: str = ""


_KINDS = {
    n.FnDecl: "fn",
    n.HostFn: "hostfn",
    n.StructDecl: "struct",
    n.HostTypeDecl: "hosttype",
    n.Const: "const",
}


def fuzzy(query: str, name: str) -> bool:
    """Are the query's letters in the name, in order, ignoring case?"""
    it = iter(name.lower())
    return all(c in it for c in query.lower())


def workspace_symbols(genome: Genome, query: str, limit: int = 500) -> list[Found]:
    out: list[Found] = []
    for path in sorted(genome.checked):
        for item in genome.checked[path].module.items:
            kind = _KINDS.get(type(item))
            if kind is None:
                continue
            if fuzzy(query, item.name):
                out.append(Found(item.name, kind, item.name_span, path))
            members = item.fields if kind == "struct" else getattr(item, "methods", ())
            for m in members if kind in ("struct", "hosttype") else ():
                if fuzzy(query, m.name):
                    span = name_span(m.span, m.name) if kind == "struct" else m.name_span
                    what = "field" if kind == "struct" else "method"
                    out.append(Found(m.name, what, span, f"{path} {item.name}"))
            if len(out) >= limit:
                return out
    return out
