"""Type checking of constant initialisers and function bodies: the items
and statements (expressions are `checkexpr.py`'s, natives `natives.py`'s,
and the words of every diagnostic `messages.py`'s).

One pass per function, top to bottom, in the style of starlark-go's
resolver: a flat dict of the locals in scope (name -> type) plus, per open
block, the list of names it declared, deleted again when the block closes.
Since a local may not shadow another local still in scope, that dict is the
whole environment and a local's name identifies it within its function.

Statement handlers (dispatched on the node's class through a dict) return
how control leaves them: FALLS (to the next statement), JUMPS
(break/continue), or RETURNS (return, or a `while true` with no break),
from which missing returns and unreachable statements follow. `ERROR` is
compatible with everything, so one mistake is reported once.
"""

from __future__ import annotations

from . import nodes as n
from .checkexpr import ExprChecker
from .diagnostics import Span
from .messages import Messages, show
from .resolver import ModuleEnv, Sym, reserved
from .types import BOOL, ERROR, JSON, STRING, VOID, ListType, MapType, Type

FALLS, JUMPS, RETURNS = 0, 1, 2


class BodyChecker(ExprChecker):
    """Checks the constants and function bodies of one module."""

    def __init__(self, env: ModuleEnv):
        self.env, self.envs = env, env.envs
        self.msg = Messages(env.diags)
        self.locals: dict[str, Type] = {}
        self.scope: list[str] = []  # names declared by the innermost open block
        self.unread: dict[str, Span] = {}  # `let`/`for` variables not yet used: W0204
        self.unused: list[tuple[str, Span]] = []  # those whose block closed unused
        self.loops: list[bool] = []  # per open loop: has it a `break`?
        self.ret: Type = VOID
        self._local_refs: dict[str, n.Ref] = {}
        self._expr = self.expression_handlers()
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

    # --- items --------------------------------------------------------------------

    def check_const(self, sym: Sym) -> None:
        node: n.Const = sym.node
        self.locals, self.scope, self.loops, self.unread = {}, [], [], {}
        declared = self.env.resolve_type(node.type) if node.type is not None else None
        t = self.value(node.value, declared)
        if declared is not None:
            self.expect(declared, t, node.value, "E0301")
            t = declared
        sym.type = t

    def check_fn(self, sym: Sym) -> None:
        node: n.FnDecl = sym.node
        self.locals, self.scope, self.loops, self.unread = {}, [], [], {}
        self.ret = sym.ret
        for p, t in zip(node.params, sym.params, strict=True):
            self.locals.setdefault(p.name, t)
        diags, first = self.env.diags, len(self.env.diags)
        self.unused = []
        flow = self.block(node.body)
        # unused variables, as rustc's lint, only in a function that checks cleanly
        if self.unused and not any(d.is_error for d in diags[first:]):
            for name, span in self.unused:
                self.msg.unused_variable(name, span)
        if flow == FALLS and sym.ret is not VOID and sym.ret is not ERROR:
            self.msg.missing_return(node.name, sym.ret, node.name_span)

    # --- statements ---------------------------------------------------------------

    def block(self, b: n.Block) -> int:
        outer, self.scope = self.scope, []
        flow, warned = FALLS, False
        stmt = self._stmt
        for s in b.stmts:
            if flow and not warned:
                self.msg.unreachable(s.span)
                warned = True
            f = stmt[s.__class__](s)
            if not flow:
                flow = f
        loc, unread = self.locals, self.unread
        for name in self.scope:
            del loc[name]
            if name in unread:
                self.unused.append((name, unread.pop(name)))
        self.scope = outer
        return flow

    def _bind(self, name: str, t: Type, span: Span) -> None:
        if name.startswith("__"):
            reserved(self.env, name, span)
        if name in self.locals:
            self.msg.shadowing(name, span)
            return
        self.locals[name] = t
        self.scope.append(name)
        self.env.bindings[span] = t
        if name[0] != "_":
            self.unread[name] = span

    def _let(self, s: n.Let) -> int:
        if s.type is not None:
            declared = self.env.resolve_type(s.type)
            self.expect(declared, self.value(s.value, declared), s.value, "E0301")
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
        self.expect(tt, vt, value, "E0301")
        return FALLS

    def _target(self, t: n.Expr) -> Type:
        ty = self.expr(t)
        root = t
        while root.__class__ is n.FieldAccess or root.__class__ is n.Index:
            if root.__class__ is n.Index and root.obj.ty in (STRING, JSON):
                self.msg.immutable(root.obj.ty, root.span)
                return ERROR
            root = root.obj
        if root.__class__ is n.Name or root.__class__ is n.Path:
            ref = root.ref
            if ref is None or ref.kind != "const":  # a local, or already reported
                return ty if ref is not None and ref.kind == "local" else ERROR
            self.msg.assign_const(show(root), t is root, t.span)
            return ERROR
        self.msg.not_a_place(t.span)
        return ERROR

    def cond(self, e: n.Expr) -> None:
        t = self.value(e)
        if t is not BOOL and t is not ERROR:
            self.msg.condition(t, e.span)

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
            self.msg.cannot_iterate(t, s.iterable.span)
            elem = ERROR
        outer, self.scope = self.scope, []
        self._bind(s.name, elem, s.name_span)
        self.loops.append(False)
        self.block(s.body)
        self.loops.pop()
        for name in self.scope:
            del self.locals[name]
            if name in self.unread:
                self.unused.append((name, self.unread.pop(name)))
        self.scope = outer
        return FALLS

    def _break(self, s: n.Stmt) -> int:
        if not self.loops:
            self.msg.outside_loop("break", s.span)
            return FALLS
        self.loops[-1] = True
        return JUMPS

    def _continue(self, s: n.Stmt) -> int:
        if not self.loops:
            self.msg.outside_loop("continue", s.span)
            return FALLS
        return JUMPS

    def _return(self, s: n.Return) -> int:
        ret = self.ret
        if s.value is None:
            if ret is not VOID and ret is not ERROR:
                self.msg.return_needs_value(ret, s.span)
        elif ret is VOID:
            self.expr(s.value)
            self.msg.return_in_void(s.value.span)
        else:
            self.expect(ret, self.value(s.value, ret), s.value, "E0304")
        return RETURNS

    def _expr_stmt(self, s: n.ExprStmt) -> int:
        e = s.expr
        self.expr(e)
        if e.__class__ is not n.Call and e.__class__ is not n.MethodCall:
            self.msg.unused_value(e.span)
        return FALLS
