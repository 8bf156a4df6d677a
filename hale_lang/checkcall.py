"""Type checking of calls (a base of `checkexpr.ExprChecker`).

A call's callee decides how its arguments are checked: a Hale function or
`host fn` against its declared parameters, one at a time; a native against
its overloads (`natives.check_native`); a method by its receiver's type —
a host type's declared methods, or the natives named `<Kind>.<method>`.
A call that cannot be resolved still checks its arguments, for their own
mistakes, and has type `ERROR`.
"""

from __future__ import annotations

from hale_lang.stdlib.prelude import MUTATING

from . import nodes as n
from .diagnostics import did_you_mean
from .messages import a, show
from .natives import METHODS, SIGS, check_native, kind
from .resolver import reserved
from .types import ERROR, HostType, StructType, Type, assignable


class CallChecker:
    def _call(self, e: n.Call, expected: Type | None) -> Type:
        f = e.func
        c = f.__class__
        if c is n.Name:
            name = f.name
            lt = self.locals.get(name)
            if lt is not None:
                self.unread.pop(name, None)
                f.ref, f.ty = self.local_ref(name), lt
                message = f"`{name}` is a variable of type `{lt}`, not a function"
                return self._not_callable(e, message)
            sym = self.env.items.get(name)
            if sym is None:
                sigs = SIGS.get(name)
                if sigs is not None:
                    return check_native(self, e, f, sigs, e.args, None)
                self.undefined(f, name)
                return self._failed(e)
        elif c is n.Path:
            sym = self.env.lookup_path(f.parts, f.span)
            if sym is None:
                return self._failed(e)
        else:
            self.expr(f)
            return self._not_callable(e, "this expression is not a function")
        if sym.kind == "broken":  # a syntax error cut it short: reported there
            return self._failed(e)
        if sym.kind == "fn" or sym.kind == "hostfn":
            f.ref = sym.ref
            self._args(e, sym.params, e.args, show(f), sym.node.params)
            e.ty = f.ty = t = sym.ret
            return t
        if sym.kind == "const":
            f.ref, f.ty = sym.ref, sym.type or ERROR
        self.msg.item_not_callable(sym.kind, show(f), f.span)
        return self._failed(e)

    def _failed(self, e: n.Call) -> Type:
        self.skip(e.args)
        e.ty = ERROR
        if e.func.ty is None:
            e.func.ty = ERROR
        return ERROR

    def _not_callable(self, e: n.Call, message: str) -> Type:
        self.msg.not_callable(message, e.func.span)
        return self._failed(e)

    def _args(self, e: n.Expr, params, args: list[n.Expr], shown: str, decl) -> None:
        """Check a Hale or host function's arguments against its parameters."""
        if len(args) != len(params):
            self.msg.arity(shown, params, decl, len(args), e.span)
            self.skip(args[len(params) :])
        for arg, p, d in zip(args, params, decl, strict=False):
            t = self.value(arg, p)
            if not assignable(p, t):
                self.msg.argument(p, d.name, t, arg.span)

    def _method_call(self, e: n.MethodCall, expected: Type | None) -> Type:
        rt = self.value(e.receiver)
        name = e.method
        if name.startswith("__") or rt is ERROR:
            if name.startswith("__"):
                reserved(self.env, name, e.method_span)
            self.skip(e.args)
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
        recv = kind(rt)
        sigs = SIGS.get(f"{recv}.{name}") if recv else None
        if sigs is None:
            return self._no_method(e, rt, METHODS.get(recv, ()))
        t = check_native(self, e, None, sigs, e.args, rt)
        if f"{recv}.{name}" in MUTATING:
            self._not_a_constant(e)
        return t

    def _not_a_constant(self, e: n.MethodCall) -> None:
        """A method that changes its receiver, on a constant (which every
        read copies), would change nothing: refused like an assignment."""
        root = e.receiver
        while root.__class__ is n.FieldAccess or root.__class__ is n.Index:
            root = root.obj
        c = root.__class__
        if (c is n.Name or c is n.Path) and root.ref is not None and root.ref.kind == "const":
            self.msg.mutate_const(show(root), e.method, e.span)

    def _no_method(self, e: n.MethodCall, rt: Type, names) -> Type:
        help = did_you_mean(e.method, names)
        if rt.__class__ is StructType and e.method in self.fields_of(rt):
            help = f"`{e.method}` is a field: write `.{e.method}` without parentheses"
        elif not names:
            help = f"{a(rt)} has no methods"
        self.msg.no_method(e.method, rt, help, e.method_span)
        self.skip(e.args)
        e.ty = ERROR
        return ERROR

    def fields_of(self, t: StructType) -> dict[str, Type]:
        return self.envs[t.module].items[t.name].fields
