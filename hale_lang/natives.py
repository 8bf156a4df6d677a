"""Natives (`len`, `String.split`, …) as the checker sees them: typed from
their signature strings in `stdlib.prelude`.

A signature is parsed once into parameter and return types, with type
variables (T, K, V) where the native is generic. At a call, overloads are
tried in order, unifying each type variable with the argument types; the
first that fits is chosen. An empty literal argument (`[]`, `{}`) has no
type of its own: it fits any parameter of its shape, and is checked after
the choice, against the parameter type the other arguments fixed.

The checking functions take the `BodyChecker` as `chk` (for `value`,
`expect` and its diagnostics); `Checker` says what they read of it, so this
module sits below typecheck.py and never imports it.
"""

from __future__ import annotations

import re
from typing import Protocol

from hale_lang.stdlib.prelude import NATIVES

from . import nodes as n
from .messages import Messages
from .resolver import ModuleEnv, contains_host
from .types import (
    ERROR,
    INT,
    JSON,
    PRIMITIVES,
    STRING,
    VOID,
    ListType,
    MapType,
    Prim,
    Type,
    TypeVar,
    assignable,
)


class Checker(Protocol):
    """What the checking functions read of typecheck.py's `BodyChecker`."""

    msg: Messages
    envs: dict[str, ModuleEnv]

    def value(self, e: n.Expr, expected: Type | None = None) -> Type: ...

    def expect(self, want: Type, got: Type, e: n.Expr, code: str) -> None: ...


# --- signatures ---------------------------------------------------------------------


class NativeSig:
    __slots__ = ("name", "params", "ret", "variadic", "ref", "text")

    def __init__(self, name: str, index: int, sig: str, variadic: bool):
        self.name, self.text, self.variadic = name, sig, variadic
        self.params, self.ret = parse_sig(sig)
        self.ref = n.Ref("native", name=name, overload=index)

    def shown(self) -> str:
        """The signature as it is called: a method's without its receiver,
        `String.replace(String, String) -> String`."""
        if "." not in self.name:
            return self.text
        ret = "" if self.ret is VOID else f" -> {self.ret}"
        return f"{self.name}({', '.join(str(p) for p in self.params[1:])}){ret}"


_TOKEN = re.compile(r"\s*([A-Za-z_]\w*|[<>,()]|->)")


def parse_sig(sig: str) -> tuple[tuple[Type, ...], Type]:
    """`fn(List<T>, T) -> Bool` as (parameter types, return type)."""
    toks = _TOKEN.findall(sig)
    pos = 0

    def typ() -> Type:
        nonlocal pos
        name = toks[pos]
        pos += 1
        args = []
        if pos < len(toks) and toks[pos] == "<":
            while toks[pos] in ("<", ","):
                pos += 1
                args.append(typ())
            pos += 1  # ">"
        if name == "List":
            return ListType(args[0])
        if name == "Map":
            return MapType(args[0], args[1])
        return PRIMITIVES.get(name) or TypeVar(name)

    assert toks[0] == "fn" and toks[1] == "("
    pos, params = 2, []
    while toks[pos] != ")":
        params.append(typ())
        if toks[pos] == ",":
            pos += 1
    pos += 1  # ")"
    if pos < len(toks) and toks[pos] == "->":
        pos += 1
        return tuple(params), typ()
    return tuple(params), VOID


SIGS: dict[str, list[NativeSig]] = {}
for _nat in NATIVES:
    _list = SIGS.setdefault(_nat.name, [])
    _list.append(NativeSig(_nat.name, len(_list), _nat.sig, _nat.variadic))
PRELUDE_FNS = sorted(name for name in SIGS if "." not in name)
METHODS: dict[str, list[str]] = {}
for _name in SIGS:
    if "." in _name:
        _recv, _, _meth = _name.partition(".")
        METHODS.setdefault(_recv, []).append(_meth)
TEXT_NATIVES = {"to_string", "json_str", "to_json", "format"}


def kind(t: Type) -> str:
    """The receiver name natives use for a type: String, List, Map, Json …"""
    c = t.__class__
    if c is ListType:
        return "List"
    if c is MapType:
        return "Map"
    if c is Prim:
        return t.name
    return ""


# --- unification --------------------------------------------------------------------


def unify(p: Type, t: Type, b: dict[str, Type]) -> bool:
    """Does argument type `t` fit parameter `p`, binding type variables in `b`?"""
    if t is ERROR:
        return True
    c = p.__class__
    if c is TypeVar:
        bound = b.get(p.name)
        if bound is None or bound is ERROR:
            b[p.name] = t
            return True
        return assignable(bound, t)
    if c is ListType:
        return t.__class__ is ListType and unify(p.elem, t.elem, b)
    if c is MapType:
        return t.__class__ is MapType and unify(p.key, t.key, b) and unify(p.value, t.value, b)
    return p == t


def subst(p: Type, b: dict[str, Type]) -> Type | None:
    """`p` with its variables replaced; None when one is still unbound."""
    c = p.__class__
    if c is TypeVar:
        return b.get(p.name)
    if c is ListType:
        e = subst(p.elem, b)
        return None if e is None else ListType(e)
    if c is MapType:
        k, v = subst(p.key, b), subst(p.value, b)
        return None if k is None or v is None else MapType(k, v)
    return p


def _has_var(t: Type) -> bool:
    return subst(t, {}) is None


def fits(params, types, args, off: int) -> dict[str, Type] | None:
    """The type-variable binding under which the arguments fit, or None.
    An empty literal (type None) fits any parameter of its shape."""
    b: dict[str, Type] = {}
    for i, (p, t) in enumerate(zip(params, types, strict=False)):
        if t is None:
            shape = ListType if args[i - off].__class__ is n.ListLit else MapType
            if p.__class__ is not shape and p.__class__ is not TypeVar:
                return None
        elif not unify(p, t, b):
            return None
    return b


def is_empty(e: n.Expr) -> bool:
    """An empty `[]` or `{}` literal, whose type comes from where it goes."""
    c = e.__class__
    return (c is n.ListLit and not e.items) or (c is n.MapLit and not e.entries)


# --- checking a call ----------------------------------------------------------------


def check_native(
    chk: Checker,
    e: n.Call | n.MethodCall,
    f: n.Expr | None,
    sigs: list[NativeSig],
    args: list[n.Expr],
    receiver: Type | None,
) -> Type:
    """Choose the first overload of a native that fits the arguments."""
    types: list[Type | None] = [] if receiver is None else [receiver]
    for a in args:
        types.append(None if is_empty(a) else chk.value(a))
    count = len(types)
    chosen, binding = None, {}
    for sig in sigs:
        fixed = len(sig.params)
        if count != fixed and not (sig.variadic and count > fixed):
            continue
        b = fits(sig.params, types, args, count - len(args))
        if b is not None:
            chosen, binding = sig, b
            break
    if chosen is None:
        return _no_overload(chk, e, f, sigs, args, types, receiver is not None)
    if f is not None:
        f.ref = chosen.ref
    else:
        e.ref = chosen.ref
    _rest(chk, chosen, binding, args, types, receiver is not None)
    _known_misuse(chk, e, chosen, args, receiver)
    ret = subst(chosen.ret, binding) or ERROR
    e.ty = ret
    if f is not None:
        f.ty = ret
    return ret


def _rest(chk: Checker, sig: NativeSig, b, args, types, method: bool) -> None:
    """Deferred empty literals, and values that cannot be text."""
    off = 1 if method else 0
    for i, a in enumerate(args):
        if types[i + off] is not None:
            continue
        p = sig.params[i + off] if i + off < len(sig.params) else None
        want = subst(p, b) if p is not None else None
        if want is None:
            chk.msg.empty_literal_argument(a.span)
            a.ty = ERROR
        else:
            chk.expect(want, chk.value(a, want), a, "E0302")
    if sig.name in TEXT_NATIVES:
        for a, t in zip(args, types[off:], strict=True):
            if t is not None and contains_host(t, chk.envs):
                chk.msg.host_to_text(t, a.span)


def _known_misuse(chk: Checker, e, sig: NativeSig, args, receiver: Type | None) -> None:
    """What would fail at run time whatever the values: a `format` whose
    literal template and arguments disagree, sorting what has no order."""
    if sig.name == "format" and args and args[0].__class__ is n.StrLit:
        holes = format_holes(args[0].value)
        if holes != len(args) - 1:
            chk.msg.format_arity(holes, len(args) - 1, e.span)
    elif sig.name == "List.sorted" and receiver.__class__ is ListType:
        if receiver.elem not in (INT, STRING, JSON, ERROR):  # Json is checked when it runs
            chk.msg.unordered(receiver, e.span)


def format_holes(template: str) -> int:
    """How many `{}` a `format` template has (`{{` and `}}` are braces), read
    as stdlib.prelude's `_format` reads it."""
    holes = i = 0
    while i < len(template):
        two = template[i : i + 2]
        if two in ("{{", "}}", "{}"):
            holes += two == "{}"
            i += 2
        else:
            i += 1
    return holes


def _no_overload(chk: Checker, e, f, sigs, args, types, method: bool) -> Type:
    off = 1 if method else 0
    name = sigs[0].name
    shown = f"`{name.partition('.')[2]}`" if method else f"`{name}`"
    if not any(
        len(types) == len(s.params) or (s.variadic and len(types) > len(s.params)) for s in sigs
    ):
        arities = sorted({len(s.params) - off for s in sigs})
        chk.msg.native_arity(shown, arities, sigs, len(args), e.span)
    elif len(sigs) == 1:
        sig, b = sigs[0], {}
        for i, (p, t) in enumerate(zip(sig.params, types, strict=False)):
            if t is not None and not unify(p, t, b):
                want = subst(p, b) or p
                if i >= off:
                    chk.msg.mismatch("E0302", want, t, args[i - off].span)
                else:
                    chk.msg.receiver_mismatch(shown, want, t, e.receiver.span)
                break
    else:
        chk.msg.no_overload(shown, types[off:], sigs, e.span)
    for a, t in zip(args, types[off:], strict=True):
        if t is None:
            a.ty = ERROR
    rets = {s.ret for s in sigs}
    ret = rets.pop() if len(rets) == 1 and not _has_var(sigs[0].ret) else ERROR
    e.ty = ret
    if f is not None:
        f.ty = ret
    return ret
