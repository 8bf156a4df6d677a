"""Type checking of expressions (a base of `typecheck.BodyChecker`).

Each handler, dispatched on the node's class through a dict, computes the
type, stores it in `ty`, fills `ref` on names and struct literals, and
returns the type. `expected` flows down only to where it decides something
— empty `[]`/`{}` literals and their elements — so inference stays a single
bottom-up pass. Calls are `checkcall.py`'s. A chain `a + b + … + z` leans
left in the tree and is walked with a loop, so its length costs no Python
stack.
"""

from __future__ import annotations

from . import nodes as n
from .checkcall import CallChecker
from .messages import show
from .natives import PRELUDE_FNS, SIGS, is_empty, kind
from .resolver import KEY_TYPES, Sym, reserved
from .types import (
    BOOL,
    ERROR,
    INT,
    JSON,
    STRING,
    VOID,
    ListType,
    MapType,
    StructType,
    Type,
    assignable,
)

_ARITH = frozenset("+-*/%")
_ORDER = frozenset(("<", "<=", ">", ">="))


class ExprChecker(CallChecker):
    def expression_handlers(self) -> dict:
        return {
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

    # --- helpers ------------------------------------------------------------------

    def expr(self, e: n.Expr, expected: Type | None = None) -> Type:
        return self._expr[e.__class__](e, expected)

    def value(self, e: n.Expr, expected: Type | None = None) -> Type:
        """An expression that must produce a value (anything but a Void call)."""
        t = self._expr[e.__class__](e, expected)
        if t is VOID:
            self.msg.no_value(e)
            return ERROR
        return t

    def expect(self, want: Type, got: Type, e: n.Expr, code: str) -> None:
        if not assignable(want, got):
            self.msg.mismatch(code, want, got, e.span)

    def skip(self, args: list[n.Expr]) -> None:
        """Check arguments of a call that could not be resolved, for their own errors."""
        for a in args:
            if not is_empty(a):
                self.expr(a)
            else:
                a.ty = ERROR

    # --- atoms --------------------------------------------------------------------

    def _int(self, e: n.IntLit, expected: Type | None) -> Type:
        e.ty = INT
        return INT

    def _str(self, e: n.StrLit, expected: Type | None) -> Type:
        e.ty = STRING
        return STRING

    def _bool(self, e: n.BoolLit, expected: Type | None) -> Type:
        e.ty = BOOL
        return BOOL

    def local_ref(self, name: str) -> n.Ref:
        ref = self._local_refs.get(name)
        if ref is None:
            ref = self._local_refs[name] = n.Ref("local", name=name)
        return ref

    def _name(self, e: n.Name, expected: Type | None) -> Type:
        name = e.name
        t = self.locals.get(name)
        if t is not None:
            if name in self.unread:
                del self.unread[name]
            e.ref = self.local_ref(name)
            e.ty = t
            return t
        sym = self.env.items.get(name)
        if sym is not None:
            return self._item_value(e, sym)
        e.ty = ERROR
        if name in SIGS:
            self.msg.not_value(
                f"`{name}` is a function, not a value", e.span, f"call it: `{name}(…)`"
            )
        else:
            self.undefined(e, name)
        return ERROR

    def undefined(self, e: n.Expr, name: str) -> None:
        names = [*self.locals, *PRELUDE_FNS]
        names += [s.name for s in self.env.items.values() if s.kind != "alias"]
        self.msg.undefined(name, names, e.span)

    def _path(self, e: n.Path, expected: Type | None) -> Type:
        sym = self.env.lookup_path(e.parts, e.span)
        if sym is None:
            e.ty = ERROR
            return ERROR
        return self._item_value(e, sym)

    def _item_value(self, e: n.Name | n.Path, sym: Sym) -> Type:
        """A top-level item used as a value: only constants are values."""
        e.ref = sym.ref
        if sym.kind == "broken":  # a syntax error cut it short: reported there
            e.ty = ERROR
            return ERROR
        if sym.kind == "const":
            t = sym.type
            if t is None:
                self.msg.const_before_definition(sym.name, e.span)
                t = ERROR
            e.ty = t
            return t
        e.ty = ERROR
        if sym.kind == "alias":
            e.ref = None
        self.msg.item_not_value(sym.kind, show(e), e.span)
        return ERROR

    # --- literals -----------------------------------------------------------------

    def _list(self, e: n.ListLit, expected: Type | None) -> Type:
        want = expected.elem if expected.__class__ is ListType else None
        if not e.items and want is None and expected is not None:
            return self._empty_misfit(e, expected, "list")
        elem, deferred = self._elements(e.items, want, "list elements")
        if elem is None:
            if deferred or not e.items:
                self.msg.empty_list(e.span)
            e.ty = ERROR
            return ERROR
        for item in deferred:
            self.expect(elem, self.value(item, elem), item, "E0307")
        e.ty = t = ListType(elem)
        return t

    def _empty_misfit(self, e: n.Expr, expected: Type, what: str) -> Type:
        """`[]` or `{}` where the context wants something else entirely."""
        if expected is not ERROR:
            self.msg.empty_misfit(expected, what, e.span)
        e.ty = ERROR
        return ERROR

    def _elements(self, items: list[n.Expr], want: Type | None, what: str):
        """Type a run of expressions that must agree; returns (type, empty literals)."""
        elem, deferred = want, []
        for item in items:
            if elem is None and is_empty(item):
                deferred.append(item)
                continue
            t = self.value(item, elem)
            if elem is None:
                if t is not ERROR:
                    elem = t
            elif not assignable(elem, t):
                self.msg.disagree("E0307", what, t, elem, item.span)
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
                self.msg.empty_map(e.span)
                e.ty = ERROR
                return ERROR
            e.ty = expected
            return expected
        key, kdef = self._elements([k for k, _ in entries], wk, "map keys")
        val, vdef = self._elements([v for _, v in entries], wv, "map values")
        if key is not None and wk is None and key not in KEY_TYPES:
            self.msg.map_key(key, entries[0][0].span)
        for items, t in ((kdef, key), (vdef, val)):
            for item in items:
                if t is None:
                    self._list(item, None) if item.__class__ is n.ListLit else self._map(item, None)
                else:
                    self.expect(t, self.value(item, t), item, "E0307")
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
                self.msg.field_twice(f.name, f.span)
            seen.add(f.name)
            ft = fields.get(f.name)
            if ft is None:
                self.msg.no_such_field("E0205", f"struct `{sym.name}`", f.name, fields, f.span)
                self.expr(f.value)
            else:
                self.expect(ft, self.value(f.value, ft), f.value, "E0301")
        missing = [f for f in fields if f not in seen]
        if missing:
            self.msg.missing_fields(sym.name, missing, e.span)
        e.ty = sym.type
        return sym.type

    def _struct_sym(self, e: n.StructLit) -> Sym | None:
        path = e.path
        if len(path) == 1:
            sym = self.env.items.get(path[0])
            if sym is None:
                names = [s.name for s in self.env.items.values() if s.kind == "struct"]
                self.msg.unknown_struct(path[0], names, e.span)
                return None
        else:
            sym = self.env.lookup_path(path, e.span)
            if sym is None:
                return None
        if sym.kind == "broken":
            return None
        if sym.kind != "struct":
            self.msg.not_a_struct("::".join(path), sym.kind, e.span)
            return None
        return sym

    # --- access -------------------------------------------------------------------

    def _field(self, e: n.FieldAccess, expected: Type | None) -> Type:
        t = self.value(e.obj)
        name = e.name
        if name.startswith("__"):
            reserved(self.env, name, e.name_span)
        elif t.__class__ is StructType:
            fields = self.fields_of(t)
            ft = fields.get(name)
            if ft is not None:
                e.ty = ft
                return ft
            self.msg.no_such_field("E0207", f"struct `{t}`", name, fields, e.name_span)
        elif t is not ERROR:
            if f"{kind(t)}.{name}" in SIGS:
                help = f"`{name}` is a method: write `.{name}()`"
            elif t is JSON:
                help = f'read a key with `.get("{name}")`'
            else:
                help = None
            self.msg.not_a_field(t, name, help, e.name_span)
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
                self.msg.cannot_index(ot, e.span)
            e.ty = ERROR
            return ERROR
        if not assignable(want, it):
            by = "`String` or `Int`" if ot is JSON else f"`{want}`"
            self.msg.index_type(ot, by, it, e.index.span)
        e.ty = t
        return t

    # --- operators ----------------------------------------------------------------

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
                self.msg.operator(op, lt, rt, False, e.span)
                t = ERROR if op == "+" else INT
        elif op in _ORDER:
            t = BOOL
            if (
                not (lt is rt and (lt is INT or lt is STRING))
                and lt is not ERROR
                and rt is not ERROR
            ):
                self.msg.operator(op, lt, rt, True, e.span)
        elif op == "==" or op == "!=":
            t = BOOL
            if not assignable(lt, rt):
                self.msg.compare(lt, rt, e.span)
        else:  # && ||
            t = BOOL
            for side, st in ((e.left, lt), (e.right, rt)):
                if st is not BOOL and st is not ERROR:
                    self.msg.logic_operand(op, st, side.span)
        e.ty = t
        return t

    def _unary(self, e: n.Unary, expected: Type | None) -> Type:
        t = self.value(e.operand)
        want = BOOL if e.op == "!" else INT
        if t is not want and t is not ERROR:
            self.msg.unary(e.op, t, want, e.span)
        e.ty = want
        return want
