"""Checking again only the function bodies an edit touched.

The reparser (reparse.py) hands back, for an edited module, the very item
objects of every chunk it did not parse again. When the new tree differs
from the last checked one only in functions whose headers are unchanged
(same name, parameters, return type, and the same first and last line, so
nothing after them moved), the module's table is still right: the same
items with the same signatures. Then only those bodies are checked again,
against the table as it is, and the module's diagnostics are the old ones
less those each old body gave (anything inside it, and its missing-return
error at its name) plus the new body's.

What a body check leaves beyond its diagnostics is patched too: the item's
Sym points at the new node, and the new header's written types get the
resolved types of the old one. Whether an import is unused (W0201) is
decided over the whole module, so an edit that writes the first or drops
the last `alias::` of an alias (no other part of the module names it) is
checked in full,
as is anything else this cannot vouch for (a body nested past the limits,
a changed header, an item added, removed or moved). `None` says so.
"""

from __future__ import annotations

import re

from .. import nodes as n
from ..diagnostics import Diagnostic
from ..limits import depth_errors, headroom
from ..resolver import ModuleEnv
from ..typecheck import BodyChecker
from .deps import Reads, Recording
from .memo import FnMemo
from .reparse import _NOISE

_ALIAS_USE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*::")


def recheck_bodies(
    old_module: n.Module,
    old_text: str,
    old_diags: list[Diagnostic],
    env: ModuleEnv,
    module: n.Module,
    text: str,
    rec: Recording | None = None,
    reads: Reads | None = None,
    memo: FnMemo | None = None,
    stale: set[str] | None = None,
) -> list[Diagnostic] | None:
    """The module's diagnostics after checking only its changed bodies, or
    None when the whole module must be checked (see the module docstring)."""
    a, b = old_module.items, module.items
    if len(a) != len(b):
        return None
    changed: list[tuple[n.FnDecl, n.FnDecl]] = []
    for x, y in zip(a, b, strict=True):
        if x is y:
            continue
        if type(x) is not n.FnDecl or type(y) is not n.FnDecl or not _same_header(x, y):
            return None
        changed.append((x, y))
    if not changed:
        return None
    if env.aliases and not _aliases_unaffected(old_text, text, changed):
        return None
    for _, y in changed:
        if depth_errors(n.Module(module.path, [y])):
            return None
    return _recheck(env, changed, old_diags, rec, reads, memo, stale)


def recheck_fns(
    env: ModuleEnv,
    names: set[str],
    old_diags: list[Diagnostic],
    rec: Recording | None = None,
    reads: Reads | None = None,
    memo: FnMemo | None = None,
    stale: set[str] | None = None,
) -> list[Diagnostic] | None:
    """The module's diagnostics after checking again the bodies of the fns
    `names` as they are (what they read elsewhere changed: deps.py), or None
    when one of them is not a fn. A body whose reads are again what a kept
    check of it saw (memo.py) takes that check's diagnostics and is named in
    `stale`: its expressions' types are checked again when next read."""
    pairs = []
    for name in sorted(names):
        sym = env.items.get(name)
        if sym is None or sym.kind != "fn":
            return None
        pairs.append((sym.node, sym.node))
    return _recheck(env, pairs, old_diags, rec, reads, memo, stale)


def _recheck(
    env: ModuleEnv,
    pairs: list[tuple[n.FnDecl, n.FnDecl]],
    old_diags: list[Diagnostic],
    rec: Recording | None,
    reads: Reads | None,
    memo: FnMemo | None = None,
    stale: set[str] | None = None,
) -> list[Diagnostic] | None:
    """Check each pair's new body in the old one's place (see the docstring)."""
    for x, y in pairs:
        sym = env.items.get(y.name)
        if sym is None or sym.node is not x:
            return None
    gone = [(x.body.span, x.name_span) for x, _ in pairs]
    kept = [d for d in old_diags if not _from_body(d, gone)]
    saved, env.diags = env.diags, []
    try:
        with headroom():
            checker = BodyChecker(env)
            for x, y in pairs:
                sym = env.items[y.name]
                for p, q in zip(x.params, y.params, strict=True):
                    _copy_types(p.type, q.type)
                if x.ret is not None:
                    _copy_types(x.ret, y.ret)
                sym.node = y
                found = memo.find(env, y) if memo is not None and x is y else None
                if found is not None and reads is not None and stale is not None:
                    env.diags.extend(found[0])
                    reads[y.name] = set(found[1])
                    stale.add(y.name)
                    continue
                if rec is not None and reads is not None:
                    reads[y.name] = set()
                    rec.enter(y.name, reads)
                if memo is not None and x is not y:
                    memo.forget(env, x)  # the body the edit replaced
                first = len(env.diags)
                checker.check_fn(sym)
                if stale is not None:
                    stale.discard(y.name)
                if memo is not None and reads is not None:
                    memo.keep(env, y, reads[y.name], env.diags[first:])
        fresh = env.diags
    finally:
        env.diags = saved
    out = kept + fresh
    out.sort(key=lambda d: (d.span.line, d.span.col) if d.span is not None else (0, 0))
    return out


def annotate(env: ModuleEnv, names: set[str], rec: Recording) -> None:
    """Check the bodies of the fns `names` again for what the check writes
    on their trees (each expression's type and reference) alone: their
    diagnostics and reads are known already (memo.py)."""
    saved, env.diags = env.diags, []
    try:
        with headroom():
            checker = BodyChecker(env)
            rec.enter("<annotate>", {})  # reads known already: noted nowhere that counts
            for name in sorted(names):
                sym = env.items.get(name)
                if sym is not None and sym.kind == "fn":
                    checker.check_fn(sym)
    finally:
        env.diags = saved


def _same_header(x: n.FnDecl, y: n.FnDecl) -> bool:
    return (
        x.name == y.name
        and x.name_span == y.name_span
        and x.span.end_line == y.span.end_line
        and [(p.name, _written(p.type)) for p in x.params]
        == [(p.name, _written(p.type)) for p in y.params]
        and _written(x.ret) == _written(y.ret)
    )


def _written(t: n.TypeRef | None) -> tuple | None:
    return None if t is None else (t.path, tuple(_written(a) for a in t.args))


def _copy_types(old: n.TypeRef, new: n.TypeRef) -> None:
    new.ty = old.ty
    for p, q in zip(old.args, new.args, strict=True):
        _copy_types(p, q)


def _from_body(d: Diagnostic, gone: list) -> bool:
    s = d.span
    if s is None:
        return False
    at = (s.line, s.col)
    for body, name in gone:
        if (body.line, body.col) <= at <= (body.end_line, body.end_col):
            return True
        if d.code == "E0309" and s == name:
            return True
    return False


def _aliases_unaffected(old_text: str, text: str, changed: list) -> bool:
    """Does every alias that the bodies name now and did not before (or did
    and do not now) also appear, as `alias::`, in the rest of the module, so
    that whether it is used cannot change?"""
    before, after, rest = set(), set(), []
    lines = text.split("\n")
    old_lines = old_text.split("\n")
    cut = {(y.body.span.line, y.body.span.end_line) for _, y in changed}
    for x, y in changed:
        for src, node, found in ((old_lines, x, before), (lines, y, after)):
            body = "\n".join(src[node.body.span.line - 1 : node.body.span.end_line])
            found |= set(_ALIAS_USE.findall(_NOISE.sub("", body)))
    named = before ^ after  # an alias named before and after stays used
    if not named:
        return True
    k = 0
    for first, last in sorted(cut):
        rest.append("\n".join(lines[k : first - 1]))
        k = last
    rest.append("\n".join(lines[k:]))
    elsewhere = set(_ALIAS_USE.findall(_NOISE.sub("", "\n".join(rest))))
    return named <= elsewhere
