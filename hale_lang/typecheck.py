"""Type checking of constant initialisers and function bodies.

One pass per function, top to bottom, in the style of starlark-go's
resolver: a flat dict of the locals in scope (name -> type) plus, per open
block, the list of names it declared, deleted again when the block closes.
Since a local may not shadow another local still in scope, that dict is the
whole environment and a local's name identifies it within its function.

Each expression handler (dispatched on the node's class through a dict)
computes the type, stores it in `ty`, fills `ref` on names, struct literals
and method calls, and returns the type. `expected` flows down only to where
it decides something — empty `[]`/`{}` literals and their elements — so
inference stays a single bottom-up pass. Statement handlers return how
control leaves them: FALLS (to the next statement), JUMPS (break/continue),
or RETURNS (return, or a `while true` with no break), from which missing
returns and unreachable statements follow.

Natives (`len`, `String.split`, …) are typed from their signature strings
in `stdlib.prelude`: overloads are tried in order, unifying type variables
(T, K, V) with the argument types; an empty literal argument is checked
after the choice, against the parameter type the other arguments fixed.
`ERROR` is compatible with everything, so one mistake is reported once.
"""

from __future__ import annotations

import re

from stdlib.prelude import NATIVES

from . import nodes as n
from .diagnostics import Diagnostic, Span, did_you_mean
from .resolver import KEY_TYPES, ModuleEnv, Sym, contains_host, reserved
from .types import (
    BOOL,
    ERROR,
    INT,
    JSON,
    PRIMITIVES,
    STRING,
    VOID,
    HostType,
    ListType,
    MapType,
    Prim,
    StructType,
    Type,
    TypeVar,
    assignable,
)

FALLS, JUMPS, RETURNS = 0, 1, 2

# --- native signatures ------------------------------------------------------------


class NativeSig:
    __slots__ = ("name", "params", "ret", "variadic", "ref", "text")

    def __init__(self, name: str, index: int, sig: str, variadic: bool):
        self.name, self.text, self.variadic = name, sig, variadic
        self.params, self.ret = _parse_sig(sig)
        self.ref = n.Ref("native", name=name, overload=index)


_TOKEN = re.compile(r"\s*([A-Za-z_]\w*|[<>,()]|->)")


def _parse_sig(sig: str) -> tuple[tuple[Type, ...], Type]:
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


def _unify(p: Type, t: Type, b: dict[str, Type]) -> bool:
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
        return t.__class__ is ListType and _unify(p.elem, t.elem, b)
    if c is MapType:
        return t.__class__ is MapType and _unify(p.key, t.key, b) and _unify(p.value, t.value, b)
    return p == t


def _subst(p: Type, b: dict[str, Type]) -> Type | None:
    """`p` with its variables replaced; None when one is still unbound."""
    c = p.__class__
    if c is TypeVar:
        return b.get(p.name)
    if c is ListType:
        e = _subst(p.elem, b)
        return None if e is None else ListType(e)
    if c is MapType:
        k, v = _subst(p.key, b), _subst(p.value, b)
        return None if k is None or v is None else MapType(k, v)
    return p


def _fits(params, types, args, off: int) -> dict[str, Type] | None:
    """The type-variable binding under which the arguments fit, or None.
    An empty literal (type None) fits any parameter of its shape."""
    b: dict[str, Type] = {}
    for i, (p, t) in enumerate(zip(params, types, strict=False)):
        if t is None:
            shape = ListType if args[i - off].__class__ is n.ListLit else MapType
            if p.__class__ is not shape and p.__class__ is not TypeVar:
                return None
        elif not _unify(p, t, b):
            return None
    return b


def _kind(t: Type) -> str:
    """The receiver name natives use for a type: String, List, Map, Json …"""
    c = t.__class__
    if c is ListType:
        return "List"
    if c is MapType:
        return "Map"
    if c is Prim:
        return t.name
    return ""


def _is_empty(e: n.Expr) -> bool:
    c = e.__class__
    return (c is n.ListLit and not e.items) or (c is n.MapLit and not e.entries)


def _a(t: Type) -> str:
    """The type in backticks with its article: a `String`, an `Int`."""
    text = str(t)
    return f"{'an' if text[0] in 'AEIOU' else 'a'} `{text}`"


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _show(e: n.Expr) -> str:
    """A short name for an expression in a message: the name, or 'this expression'."""
    c = e.__class__
    if c is n.Name:
        return f"`{e.name}`"
    if c is n.Path:
        return f"`{'::'.join(e.parts)}`"
    if c is n.Call and e.func.__class__ in (n.Name, n.Path):
        return f"{_show(e.func)[:-1]}(…)`"
    if c is n.MethodCall:
        return f"`.{e.method}(…)`"
    return "this expression"


def _convert_help(want: Type, got: Type) -> str | None:
    if want is STRING and got is not STRING:
        return "convert it with `to_string(…)`"
    if want is INT and got is STRING:
        return "convert it with `to_int(…)`"
    if got is JSON and want.__class__ is Prim:
        return f"convert it with `.as_{want.name.lower()}()`"
    return None


# --- the checker -------------------------------------------------------------------


class BodyChecker:
    """Checks the constants and function bodies of one module."""

    def __init__(self, env: ModuleEnv):
        self.env, self.envs, self.diags = env, env.envs, env.diags
        self.locals: dict[str, Type] = {}
        self.scope: list[str] = []  # names declared by the innermost open block
        self.loops: list[bool] = []  # per open loop: has it a `break`?
        self.ret: Type = VOID
        self._local_refs: dict[str, n.Ref] = {}
        self._expr = {
            n.IntLit: self._int,
            n.StrLit: self._str,
            n.BoolLit: self._bool,
            n.ListLit: self._list,
            n.MapLit: self._map,
            n.Name: self._name,
            n.Path: self._path,
            n.StructLit: self._struct_lit,
            n.Call: self._call,
            n.MethodCall: self._method_call,
            n.FieldAccess: self._field,
            n.Index: self._index,
            n.Binary: self._binary,
            n.Unary: self._unary,
        }
        self._stmt = {
            n.Let: self._let,
            n.Assign: self._assign,
            n.If: self._if,
            n.While: self._while,
            n.For: self._for,
            n.Break: self._break,
            n.Continue: self._continue,
            n.Return: self._return,
            n.ExprStmt: self._expr_stmt,
        }

    def error(self, code: str, message: str, span: Span | None, help: str | None = None) -> None:
        self.diags.append(Diagnostic(code, message, span, help))

    def warn(self, code: str, message: str, span: Span | None, help: str | None = None) -> None:
        self.diags.append(Diagnostic(code, message, span, help, severity="warning"))

    # --- items --------------------------------------------------------------------

    def check_const(self, sym: Sym) -> None:
        node: n.Const = sym.node
        self.locals, self.scope, self.loops = {}, [], []
        declared = self.env.resolve_type(node.type) if node.type is not None else None
        t = self.value(node.value, declared)
        if declared is not None:
            self._expect(declared, t, node.value, "E0301")
            t = declared
        sym.type = t

    def check_fn(self, sym: Sym) -> None:
        node: n.FnDecl = sym.node
        self.locals, self.scope, self.loops = {}, [], []
        self.ret = sym.ret
        for p, t in zip(node.params, sym.params, strict=True):
            self.locals.setdefault(p.name, t)
        flow = self.block(node.body)
        if flow == FALLS and sym.ret is not VOID and sym.ret is not ERROR:
            self.error(
                "E0309",
                f"function `{node.name}` can reach its end without returning {_a(sym.ret)}",
                node.name_span,
                f"end every path with `return …;`, or drop `-> {sym.ret}`",
            )

    # --- statements ---------------------------------------------------------------

    def block(self, b: n.Block) -> int:
        outer, self.scope = self.scope, []
        flow, warned = FALLS, False
        stmt = self._stmt
        for s in b.stmts:
            if flow and not warned:
                self.warn("W0202", "unreachable statement", s.span, "nothing after it runs")
                warned = True
            f = stmt[s.__class__](s)
            if not flow:
                flow = f
        loc = self.locals
        for name in self.scope:
            del loc[name]
        self.scope = outer
        return flow

    def _bind(self, name: str, t: Type, span: Span) -> None:
        if name.startswith("__"):
            reserved(self.env, name, span)
        if name in self.locals:
            self.error(
                "E0209",
                f"`{name}` is already a variable in scope",
                span,
                f"Hale does not shadow variables: pick another name, or assign with `{name} = …`",
            )
            return
        self.locals[name] = t
        self.scope.append(name)

    def _let(self, s: n.Let) -> int:
        if s.type is not None:
            declared = self.env.resolve_type(s.type)
            self._expect(declared, self.value(s.value, declared), s.value, "E0301")
            self._bind(s.name, declared, s.name_span)
        else:
            self._bind(s.name, self.value(s.value), s.name_span)
        return FALLS

    def _assign(self, s: n.Assign) -> int:
        target, value = s.target, s.value
        tt = self._target(target)
        if value.__class__ is n.Binary and value.left is target:  # desugared `x op= y`
            vt = self._binop(value, tt, self.value(value.right))
        else:
            vt = self.value(value, tt)
        self._expect(tt, vt, value, "E0301")
        return FALLS

    def _target(self, t: n.Expr) -> Type:
        ty = self.expr(t)
        root = t
        while root.__class__ is n.FieldAccess or root.__class__ is n.Index:
            if root.__class__ is n.Index and root.obj.ty in (STRING, JSON):
                self.error(
                    "E0312",
                    f"cannot assign into {_a(root.obj.ty)}: it is immutable",
                    root.span,
                    "build a new value and assign it to the variable",
                )
                return ERROR
            root = root.obj
        if root.__class__ is n.Name or root.__class__ is n.Path:
            ref = root.ref
            if ref is None or ref.kind != "const":  # a local, or already reported
                return ty if ref is not None and ref.kind == "local" else ERROR
            what = "constant" if t is root else "a constant"
            name = _show(root)
            msg = (
                f"cannot assign to {what} {name}" if t is root else f"cannot modify {name}, {what}"
            )
            self.error("E0312", msg, t.span, "copy it into a variable with `let` first")
            return ERROR
        self.error(
            "E0312",
            "cannot assign to this expression",
            t.span,
            "assign to a variable, a field of one, or an element of one",
        )
        return ERROR

    def cond(self, e: n.Expr) -> None:
        t = self.value(e)
        if t is not BOOL and t is not ERROR:
            help = "compare it, e.g. `len(x) > 0` or `x != 0`" if t in (INT, STRING) else None
            self.error("E0306", f"expected a `Bool` condition, found `{t}`", e.span, help)

    def _if(self, s: n.If) -> int:
        flow = RETURNS
        for c, body in s.branches:
            self.cond(c)
            flow = min(flow, self.block(body))
        return min(flow, self.block(s.orelse)) if s.orelse is not None else FALLS

    def _while(self, s: n.While) -> int:
        self.cond(s.cond)
        self.loops.append(False)
        self.block(s.body)
        broke = self.loops.pop()
        forever = s.cond.__class__ is n.BoolLit and s.cond.value
        return RETURNS if forever and not broke else FALLS

    def _for(self, s: n.For) -> int:
        t = self.value(s.iterable)
        c = t.__class__
        if c is ListType:
            elem = t.elem
        elif c is MapType:
            elem = t.key
        elif t is STRING or t is ERROR:
            elem = t
        else:
            help = "iterate over `j.as_list()` or `j.keys()`" if t is JSON else None
            self.error("E0315", f"cannot iterate over {_a(t)}", s.iterable.span, help)
            elem = ERROR
        outer, self.scope = self.scope, []
        self._bind(s.name, elem, s.name_span)
        self.loops.append(False)
        self.block(s.body)
        self.loops.pop()
        for name in self.scope:
            del self.locals[name]
        self.scope = outer
        return FALLS

    def _break(self, s: n.Stmt) -> int:
        if not self.loops:
            self.error("E0310", "`break` outside of a loop", s.span)
            return FALLS
        self.loops[-1] = True
        return JUMPS

    def _continue(self, s: n.Stmt) -> int:
        if not self.loops:
            self.error("E0310", "`continue` outside of a loop", s.span)
            return FALLS
        return JUMPS

    def _return(self, s: n.Return) -> int:
        ret = self.ret
        if s.value is None:
            if ret is not VOID and ret is not ERROR:
                self.error("E0304", f"`return;` needs {_a(ret)} value", s.span)
        elif ret is VOID:
            self.expr(s.value)
            self.error(
                "E0304",
                "this function returns nothing, but `return` has a value",
                s.value.span,
                "declare what it returns: `-> T`, or write `return;`",
            )
        else:
            self._expect(ret, self.value(s.value, ret), s.value, "E0304")
        return RETURNS

    def _expr_stmt(self, s: n.ExprStmt) -> int:
        e = s.expr
        self.expr(e)
        if e.__class__ is not n.Call and e.__class__ is not n.MethodCall:
            self.warn(
                "W0203",
                "the value of this expression is never used",
                e.span,
                "store it with `let`, or remove it",
            )
        return FALLS

    # --- expressions: helpers -----------------------------------------------------

    def expr(self, e: n.Expr, expected: Type | None = None) -> Type:
        return self._expr[e.__class__](e, expected)

    def value(self, e: n.Expr, expected: Type | None = None) -> Type:
        """An expression that must produce a value (anything but a Void call)."""
        t = self._expr[e.__class__](e, expected)
        if t is VOID:
            self.error(
                "E0313",
                f"{_show(e)} produces no value",
                e.span,
                "it returns `Void`; call it as a statement of its own",
            )
            return ERROR
        return t

    def _expect(self, want: Type, got: Type, e: n.Expr, code: str) -> None:
        if not assignable(want, got):
            help = _convert_help(want, got)
            self.error(code, f"expected `{want}`, found `{got}`", e.span, help)

    def _skip(self, args: list[n.Expr]) -> None:
        """Check arguments of a call that could not be resolved, for their own errors."""
        for a in args:
            if not _is_empty(a):
                self.expr(a)
            else:
                a.ty = ERROR

    # --- expressions: atoms -------------------------------------------------------

    def _int(self, e: n.IntLit, expected: Type | None) -> Type:
        e.ty = INT
        return INT

    def _str(self, e: n.StrLit, expected: Type | None) -> Type:
        e.ty = STRING
        return STRING

    def _bool(self, e: n.BoolLit, expected: Type | None) -> Type:
        e.ty = BOOL
        return BOOL

    def _local_ref(self, name: str) -> n.Ref:
        ref = self._local_refs.get(name)
        if ref is None:
            ref = self._local_refs[name] = n.Ref("local", name=name)
        return ref

    def _name(self, e: n.Name, expected: Type | None) -> Type:
        name = e.name
        t = self.locals.get(name)
        if t is not None:
            e.ref = self._local_ref(name)
            e.ty = t
            return t
        sym = self.env.items.get(name)
        if sym is not None:
            return self._item_value(e, sym)
        e.ty = ERROR
        if name in SIGS:
            self._not_value(e, f"`{name}` is a function, not a value", f"call it: `{name}(…)`")
        else:
            self._undefined(e, name)
        return ERROR

    def _undefined(self, e: n.Expr, name: str) -> None:
        names = [*self.locals, *PRELUDE_FNS]
        names += [s.name for s in self.env.items.values() if s.kind != "alias"]
        self.error("E0201", f"undefined name `{name}`", e.span, did_you_mean(name, names))

    def _path(self, e: n.Path, expected: Type | None) -> Type:
        sym = self.env.lookup_path(e.parts, e.span)
        if sym is None:
            e.ty = ERROR
            return ERROR
        return self._item_value(e, sym)

    def _item_value(self, e: n.Name | n.Path, sym: Sym) -> Type:
        """A top-level item used as a value: only constants are values."""
        kind = sym.kind
        e.ref = sym.ref
        if kind == "const":
            t = sym.type
            if t is None:
                self.error(
                    "E0215",
                    f"constant `{sym.name}` is used before its definition",
                    e.span,
                    "a constant may use only the constants defined above it",
                )
                t = ERROR
            e.ty = t
            return t
        e.ty = ERROR
        shown = _show(e)
        if kind in ("fn", "hostfn"):
            self._not_value(e, f"{shown} is a function, not a value", f"call it: {shown[:-1]}(…)`")
        elif kind == "struct":
            self._not_value(
                e, f"{shown} is a type, not a value", f"build one with `{shown[1:-1]} {{ … }}`"
            )
        elif kind == "hosttype":
            self._not_value(e, f"{shown} is a type, not a value", None)
        else:
            e.ref = None
            self._not_value(
                e, f"{shown} is a module, not a value", f"name one of its items: `{shown[1:-1]}::…`"
            )
        return ERROR

    def _not_value(self, e: n.Expr, message: str, help: str | None) -> None:
        self.error("E0213", message, e.span, help)

    # --- expressions: literals ----------------------------------------------------

    def _list(self, e: n.ListLit, expected: Type | None) -> Type:
        want = expected.elem if expected.__class__ is ListType else None
        if not e.items and want is None and expected is not None:
            return self._empty_misfit(e, expected, "list")
        elem, deferred = self._elements(e.items, want, "E0307", "list elements")
        if elem is None:
            if deferred or not e.items:
                self.error(
                    "E0308",
                    "cannot infer the type of an empty list",
                    e.span,
                    "give the variable a type, e.g. `let xs: List<Int> = [];`",
                )
            e.ty = ERROR
            return ERROR
        for item in deferred:
            self._expect(elem, self.value(item, elem), item, "E0307")
        e.ty = t = ListType(elem)
        return t

    def _empty_misfit(self, e: n.Expr, expected: Type, what: str) -> Type:
        """`[]` or `{}` where the context wants something else entirely."""
        if expected is not ERROR:
            self.error("E0301", f"expected `{expected}`, found an empty {what}", e.span)
        e.ty = ERROR
        return ERROR

    def _elements(self, items: list[n.Expr], want: Type | None, code: str, what: str):
        """Type a run of expressions that must agree; returns (type, empty literals)."""
        elem, deferred = want, []
        for item in items:
            if elem is None and _is_empty(item):
                deferred.append(item)
                continue
            t = self.value(item, elem)
            if elem is None:
                if t is not ERROR:
                    elem = t
            elif not assignable(elem, t):
                self.error(code, f"{what} must agree: this is `{t}`, expected `{elem}`", item.span)
        return elem, deferred

    def _map(self, e: n.MapLit, expected: Type | None) -> Type:
        entries = e.entries
        wk = wv = None
        if expected.__class__ is MapType:
            wk, wv = expected.key, expected.value
        if not entries:
            if wk is None and expected is not None:
                return self._empty_misfit(e, expected, "map")
            if wk is None:
                self.error(
                    "E0308",
                    "cannot infer the type of an empty map",
                    e.span,
                    "give the variable a type, e.g. `let m: Map<String, Int> = {};`",
                )
                e.ty = ERROR
                return ERROR
            e.ty = expected
            return expected
        key, kdef = self._elements([k for k, _ in entries], wk, "E0307", "map keys")
        val, vdef = self._elements([v for _, v in entries], wv, "E0307", "map values")
        if key is not None and wk is None and key not in KEY_TYPES:
            self.error(
                "E0311",
                f"`{key}` cannot be a map key",
                entries[0][0].span,
                "use Int, String or Bool",
            )
        for items, t in ((kdef, key), (vdef, val)):
            for item in items:
                if t is None:
                    self._list(item, None) if item.__class__ is n.ListLit else self._map(item, None)
                else:
                    self._expect(t, self.value(item, t), item, "E0307")
        if key is None or val is None:
            e.ty = ERROR
            return ERROR
        e.ty = t = MapType(key, val)
        return t

    def _struct_lit(self, e: n.StructLit, expected: Type | None) -> Type:
        sym = self._struct_sym(e)
        if sym is None:
            for f in e.fields:
                self.expr(f.value)
            e.ty = ERROR
            return ERROR
        e.ref = sym.ref
        fields = sym.fields
        seen: set[str] = set()
        for f in e.fields:
            if f.name in seen:
                self.error("E0211", f"field `{f.name}` is given twice", f.span)
            seen.add(f.name)
            ft = fields.get(f.name)
            if ft is None:
                help = did_you_mean(f.name, fields) or f"its fields are: {', '.join(fields)}"
                self.error("E0205", f"struct `{sym.name}` has no field `{f.name}`", f.span, help)
                self.expr(f.value)
            else:
                self._expect(ft, self.value(f.value, ft), f.value, "E0301")
        missing = [f for f in fields if f not in seen]
        if missing:
            names = ", ".join(f"`{f}`" for f in missing)
            self.error(
                "E0208",
                f"missing field{'s' * (len(missing) > 1)} {names} in `{sym.name}`",
                e.span,
                "every field of a struct must be given",
            )
        e.ty = sym.type
        return sym.type

    def _struct_sym(self, e: n.StructLit) -> Sym | None:
        path = e.path
        if len(path) == 1:
            sym = self.env.items.get(path[0])
            if sym is None:
                names = [s.name for s in self.env.items.values() if s.kind == "struct"]
                self.error(
                    "E0204", f"unknown struct `{path[0]}`", e.span, did_you_mean(path[0], names)
                )
                return None
        else:
            sym = self.env.lookup_path(path, e.span)
            if sym is None:
                return None
        if sym.kind != "struct":
            help = "a host type's values come from the host" if sym.kind == "hosttype" else None
            self.error("E0216", f"`{'::'.join(path)}` is not a struct", e.span, help)
            return None
        return sym

    # --- expressions: calls -------------------------------------------------------

    def _call(self, e: n.Call, expected: Type | None) -> Type:
        f = e.func
        c = f.__class__
        if c is n.Name:
            name = f.name
            lt = self.locals.get(name)
            if lt is not None:
                f.ref, f.ty = self._local_ref(name), lt
                return self._not_callable(
                    e, f"`{name}` is a variable of type `{lt}`, not a function"
                )
            sym = self.env.items.get(name)
            if sym is None:
                sigs = SIGS.get(name)
                if sigs is not None:
                    return self._native(e, f, sigs, e.args, None)
                self._undefined(f, name)
                return self._failed(e)
        elif c is n.Path:
            sym = self.env.lookup_path(f.parts, f.span)
            if sym is None:
                return self._failed(e)
        else:
            self.expr(f)
            return self._not_callable(e, "this expression is not a function")
        kind = sym.kind
        if kind == "fn" or kind == "hostfn":
            f.ref = sym.ref
            self._args(e, sym.params, e.args, _show(f), sym.node.params)
            e.ty = f.ty = t = sym.ret
            return t
        shown = _show(f)
        if kind == "const":
            f.ref, f.ty = sym.ref, sym.type or ERROR
            return self._not_callable(e, f"{shown} is a constant, not a function")
        if kind == "struct":
            return self._not_callable(
                e, f"{shown} is a struct, not a function", f"build one with `{shown[1:-1]} {{ … }}`"
            )
        if kind == "hosttype":
            return self._not_callable(e, f"{shown} is a host type, not a function")
        return self._not_callable(e, f"{shown} is a module, not a function")

    def _failed(self, e: n.Call) -> Type:
        self._skip(e.args)
        e.ty = ERROR
        if e.func.ty is None:
            e.func.ty = ERROR
        return ERROR

    def _not_callable(self, e: n.Call, message: str, help: str | None = None) -> Type:
        self.error("E0214", message, e.func.span, help)
        return self._failed(e)

    def _args(self, e: n.Expr, params, args: list[n.Expr], shown: str, decl) -> None:
        """Check a Hale or host function's arguments against its parameters."""
        if len(args) != len(params):
            sig = ", ".join(f"{p.name}: {t}" for p, t in zip(decl, params, strict=True))
            given = f"{len(args)} {'was' if len(args) == 1 else 'were'} given"
            self.error(
                "E0303",
                f"{shown} takes {_plural(len(params), 'argument')} but {given}",
                e.span,
                f"its parameters are ({sig})" if sig else "it takes no arguments",
            )
            self._skip(args[len(params) :])
        for a, p, d in zip(args, params, decl, strict=False):
            t = self.value(a, p)
            if not assignable(p, t):
                help = _convert_help(p, t)
                self.error("E0302", f"expected `{p}` for `{d.name}`, found `{t}`", a.span, help)

    def _native(
        self,
        e: n.Call | n.MethodCall,
        f: n.Expr | None,
        sigs: list[NativeSig],
        args: list[n.Expr],
        receiver: Type | None,
    ) -> Type:
        """Choose the first overload of a native that fits the arguments."""
        types: list[Type | None] = [] if receiver is None else [receiver]
        for a in args:
            types.append(None if _is_empty(a) else self.value(a))
        count = len(types)
        chosen, binding = None, {}
        for sig in sigs:
            fixed = len(sig.params)
            if count != fixed and not (sig.variadic and count > fixed):
                continue
            b = _fits(sig.params, types, args, count - len(args))
            if b is not None:
                chosen, binding = sig, b
                break
        if chosen is None:
            return self._no_overload(e, f, sigs, args, types, receiver is not None)
        if f is not None:
            f.ref = chosen.ref
        else:
            e.ref = chosen.ref
        self._native_rest(e, chosen, binding, args, types, receiver is not None)
        ret = _subst(chosen.ret, binding) or ERROR
        e.ty = ret
        if f is not None:
            f.ty = ret
        return ret

    def _native_rest(self, e, sig: NativeSig, b, args, types, method: bool) -> None:
        """Deferred empty literals, variadic extras, and values that cannot be text."""
        off = 1 if method else 0
        for i, a in enumerate(args):
            if types[i + off] is not None:
                continue
            p = sig.params[i + off] if i + off < len(sig.params) else None
            want = _subst(p, b) if p is not None else None
            if want is None:
                self.error(
                    "E0308",
                    "cannot infer the type of this empty literal here",
                    a.span,
                    "bind it to a typed variable first: `let xs: List<Int> = [];`",
                )
                a.ty = ERROR
            else:
                self._expect(want, self.value(a, want), a, "E0302")
        if sig.name in TEXT_NATIVES:
            for a, t in zip(args, types[off:], strict=True):
                if t is not None and contains_host(t, self.envs):
                    self.error(
                        "E0318",
                        f"{_a(t)} holds a host value, which has no text or JSON form",
                        a.span,
                    )

    def _no_overload(self, e, f, sigs, args, types, method: bool) -> Type:
        off = 1 if method else 0
        name = sigs[0].name
        shown = f"`{name.partition('.')[2]}`" if method else f"`{name}`"
        arities = sorted({len(s.params) - off for s in sigs})
        given = len(args)
        if not any(
            len(types) == len(s.params) or (s.variadic and len(types) > len(s.params)) for s in sigs
        ):
            want = " or ".join(str(a) for a in arities)
            more = " or more" if sigs[0].variadic else ""
            self.error(
                "E0303",
                f"{shown} takes {want}{more} argument{'s' * (arities != [1] or bool(more))} but {given} "
                f"{'was' if given == 1 else 'were'} given",
                e.span,
                f"its signature is `{sigs[0].text}`" if len(sigs) == 1 else None,
            )
        elif len(sigs) == 1:
            sig, b = sigs[0], {}
            for i, (p, t) in enumerate(zip(sig.params, types, strict=False)):
                if t is not None and not _unify(p, t, b):
                    want = _subst(p, b) or p
                    node = args[i - off] if i >= off else e.receiver
                    what = "" if i >= off else f"{shown} needs a receiver of type "
                    self.error(
                        "E0302",
                        f"{what or 'expected '}`{want}`, found `{t}`",
                        node.span,
                        _convert_help(want, t),
                    )
                    break
        else:
            shown_types = ", ".join(str(t) if t else "_" for t in types[off:])
            alts = "; ".join(f"`{s.text}`" for s in sigs)
            self.error(
                "E0317", f"{shown} does not take ({shown_types})", e.span, f"it takes {alts}"
            )
        for a, t in zip(args, types[off:], strict=True):
            if t is None:
                a.ty = ERROR
        rets = {s.ret for s in sigs}
        ret = rets.pop() if len(rets) == 1 and not _has_var(sigs[0].ret) else ERROR
        e.ty = ret
        if f is not None:
            f.ty = ret
        return ret

    def _method_call(self, e: n.MethodCall, expected: Type | None) -> Type:
        rt = self.value(e.receiver)
        name = e.method
        if name.startswith("__"):
            reserved(self.env, name, e.method_span)
            self._skip(e.args)
            e.ty = ERROR
            return ERROR
        if rt is ERROR:
            self._skip(e.args)
            e.ty = ERROR
            return ERROR
        if rt.__class__ is HostType:
            methods = self.envs[rt.module].items[rt.name].fields
            m = methods.get(name)
            if m is not None:
                e.ref = m.ref
                self._args(e, m.params, e.args, f"`{rt.name}.{name}`", m.node.params)
                e.ty = m.ret
                return m.ret
            return self._no_method(e, rt, list(methods))
        kind = _kind(rt)
        sigs = SIGS.get(f"{kind}.{name}") if kind else None
        if sigs is None:
            return self._no_method(e, rt, METHODS.get(kind, ()))
        return self._native(e, None, sigs, e.args, rt)

    def _no_method(self, e: n.MethodCall, rt: Type, names) -> Type:
        help = did_you_mean(e.method, names)
        if rt.__class__ is StructType and e.method in self._fields_of(rt):
            help = f"`{e.method}` is a field: write `.{e.method}` without parentheses"
        elif not names:
            help = f"{_a(rt)} has no methods"
        self.error("E0206", f"no method `{e.method}` on `{rt}`", e.method_span, help)
        self._skip(e.args)
        e.ty = ERROR
        return ERROR

    def _fields_of(self, t: StructType) -> dict[str, Type]:
        return self.envs[t.module].items[t.name].fields

    # --- expressions: access and operators ----------------------------------------

    def _field(self, e: n.FieldAccess, expected: Type | None) -> Type:
        t = self.value(e.obj)
        name = e.name
        if name.startswith("__"):
            reserved(self.env, name, e.name_span)
        elif t.__class__ is StructType:
            fields = self._fields_of(t)
            ft = fields.get(name)
            if ft is not None:
                e.ty = ft
                return ft
            help = did_you_mean(name, fields) or f"its fields are: {', '.join(fields)}"
            self.error("E0207", f"struct `{t}` has no field `{name}`", e.name_span, help)
        elif t is not ERROR:
            kind = _kind(t)
            if f"{kind}.{name}" in SIGS:
                help = f"`{name}` is a method: write `.{name}()`"
            elif t is JSON:
                help = f'read a key with `.get("{name}")`'
            else:
                help = None
            self.error("E0207", f"{_a(t)} has no field `{name}`", e.name_span, help)
        e.ty = ERROR
        return ERROR

    def _index(self, e: n.Index, expected: Type | None) -> Type:
        ot = self.value(e.obj)
        it = self.value(e.index)
        c = ot.__class__
        if c is ListType:
            want, t = INT, ot.elem
        elif c is MapType:
            want, t = ot.key, ot.value
        elif ot is STRING:
            want, t = INT, STRING
        elif ot is JSON:
            want, t = (it if it is STRING else INT), JSON
        else:
            if ot is not ERROR:
                self.error("E0314", f"cannot index into {_a(ot)}", e.span)
            e.ty = ERROR
            return ERROR
        if not assignable(want, it):
            by = "`String` or `Int`" if ot is JSON else f"`{want}`"
            self.error("E0314", f"{_a(ot)} is indexed by {by}, not `{it}`", e.index.span)
        e.ty = t
        return t

    def _binary(self, e: n.Binary, expected: Type | None) -> Type:
        left = e.left
        if left.__class__ is not n.Binary:
            return self._binop(e, self.value(left), self.value(e.right))
        chain = [e]  # `a + b + … + z` leans left: walk it with a loop, not recursion
        while left.__class__ is n.Binary:
            chain.append(left)
            left = left.left
        t = self.value(left)
        for b in reversed(chain):
            t = self._binop(b, t, self.value(b.right))
        return t

    def _binop(self, e: n.Binary, lt: Type, rt: Type) -> Type:
        op = e.op
        if op in _ARITH:
            if lt is INT and rt is INT:
                t = INT
            elif op == "+" and lt is STRING and rt is STRING:
                t = STRING
            elif lt is ERROR or rt is ERROR:
                other = rt if lt is ERROR else lt
                t = other if op == "+" and (other is INT or other is STRING) else INT
                t = ERROR if op == "+" and other is ERROR else t
            else:
                self._op_error(e, lt, rt)
                t = ERROR if op == "+" else INT
        elif op in _ORDER:
            t = BOOL
            if (
                not (lt is rt and (lt is INT or lt is STRING))
                and lt is not ERROR
                and rt is not ERROR
            ):
                self._op_error(e, lt, rt)
        elif op == "==" or op == "!=":
            t = BOOL
            if not assignable(lt, rt):
                self.error(
                    "E0305",
                    f"cannot compare `{lt}` with `{rt}`",
                    e.span,
                    "`==` and `!=` compare two values of the same type",
                )
        else:  # && ||
            t = BOOL
            for side, st in ((e.left, lt), (e.right, rt)):
                if st is not BOOL and st is not ERROR:
                    self.error("E0305", f"`{op}` needs `Bool` operands, found `{st}`", side.span)
        e.ty = t
        return t

    def _op_error(self, e: n.Binary, lt: Type, rt: Type) -> None:
        op = e.op
        if op == "+" and (lt is STRING or rt is STRING):
            help = "convert the other side with `to_string(…)`"
        elif op == "+":
            help = "`+` adds two Ints or joins two Strings"
        elif op in _ORDER:
            help = f"`{op}` compares two Ints or two Strings"
        else:
            help = f"`{op}` works on Ints"
        self.error("E0305", f"cannot apply `{op}` to `{lt}` and `{rt}`", e.span, help)

    def _unary(self, e: n.Unary, expected: Type | None) -> Type:
        t = self.value(e.operand)
        want = BOOL if e.op == "!" else INT
        if t is not want and t is not ERROR:
            self.error(
                "E0305", f"cannot apply `{e.op}` to `{t}`", e.span, f"`{e.op}` needs {_a(want)}"
            )
        e.ty = want
        return want


_ARITH = frozenset("+-*/%")
_ORDER = frozenset(("<", "<=", ">", ">="))


def _has_var(t: Type) -> bool:
    return _subst(t, {}) is None
