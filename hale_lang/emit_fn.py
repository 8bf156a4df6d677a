"""One Hale fn as one Python `def`: statements, loops and their steps.

Statements become Python statements one for one, at the same nesting
(limits.py keeps that within Python's limits). A call takes its step
(`for _ in _C: break`, its `else` out of steps) before the first of its
statements that can loop or call a fn: one that returns before then has done
a bounded amount of work, which its caller's step covers (fib's leaves cost
none), and a fn that calls itself takes it at one level in STEP_LEVELS of
its own recursion (it is emitted once per level); a `while` iterates the step iterator `_C` itself. A `for` pays for
its items in advance through the meter: a range loop all it can afford at
once (`_M.loop`), and `break` and `return` give back what it did not run.
A `for` with no loop inside is two Python loops, one over the batches the
meter pays for (`_M.batches` for a range, `_M.items` for a List, a Map's
keys or a String: what is left of it, up to a batch) and a plain one over
each batch, so its items come at C speed, and its `s += "literal"` sites
are charged between batches by how much `s` grew. (The two loops count
twice toward CPython's 20 nested blocks, hence only the innermost; a `for`
over items with a loop inside takes a step per item, `compress(items, _C)`.)
`s = s + x` on a String local is left for CPython to append in place and
charged in batches, and the statements that grow a list or map count down
to the meter holding it (or, directly in a loop that pays by the batch and
on a local it never assigns, leave it to the loop to hand the container to
the meter batch by batch). The variable of a range loop from a small
literal holds small Ints only, so its text needs no check for big ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from . import nodes as n
from .diagnostics import Span
from .emit_expr import _GROWS, _SIMPLE, _STMT_FORMS, ExprEmitter, ModuleEmitter, _paren
from .meter import GROWTH, RUN_PIECE
from .types import STRING, MapType

# A fn that calls itself takes its step at one level of its own recursion in
# this many (the step line is the whole of fib's cost over CPython's: 1.25x
# with a step at every level, 1.07x at one in three). Every program still
# stops: a call at level k > 0 is made by the fn at level k - 1, from a call
# site that runs once per step that call took or paid for (its own, or a loop
# item's; a level with no step of its own runs each site once), so one step
# pays for at most 1 + c + c^2 calls, c the fn's call sites of itself.
STEP_LEVELS = 3


class FnEmitter(ExprEmitter):
    """One Hale fn as one Python `def`."""

    def __init__(self, mod: ModuleEmitter, fn: n.FnDecl, level: int = 0):
        super().__init__(mod, {})
        self.fn, self.level = fn, level
        self.pyname = _level_name(mod.names.item("F", mod.path, fn.name), level)
        # a fn that calls itself is emitted once per level of STEP_LEVELS: its
        # calls of itself go to the next level, and only level 0 takes a step
        # (the hooked variant keeps one level: the debugger sees one fn)
        self.leveled = not mod.hooked
        self.calls_itself = False
        self.scopes: list[list[str]] = [[p.name for p in fn.params]]
        stmts = list(_statements(fn.body))  # walked once, read by each analysis below
        self.append_sites = [st for st in stmts if _is_append(st)]
        self.appends = {id(a): f"_a{i}" for i, a in enumerate(self.append_sites, 1)}
        self.runs = _runs(stmts)  # literal appends a range loop charges batch by batch
        # enclosing loops: each one's statement giving back the steps it paid
        # for and will not run, when it leaves early (None: it paid none)
        self.loops: list[str | None] = []
        self.batch_ends: dict[int, list[str]] = {}  # a batched loop's depth -> its batch's end
        # a range loop's watched containers: no countdown at their sites
        self.watches, self.watched = _watches(stmts)
        counted = [sp for sp in _growth_spans(stmts) if id(sp) not in self.watched]
        self.growth_sites = {id(sp): f"_g{i}" for i, sp in enumerate(counted, 1)}
        mod.labels[self.pyname] = fn.name

    def callee(self, ref: n.Ref) -> str:
        if self.leveled and ref.name == self.fn.name and ref.module == self.mod.path:
            self.calls_itself = True
            return _level_name(super().callee(ref), (self.level + 1) % STEP_LEVELS)
        return super().callee(ref)

    def site(self, span: Span) -> str:
        names = tuple(name for scope in self.scopes for name in scope)
        return repr((self.fn.name, self.mod.path, span.line, span.col, names))

    def line(self, text: str, span: Span | None) -> None:
        self.mod.line(text, span)

    def emit(self) -> None:
        fn, mod = self.fn, self.mod
        params = ", ".join("v_" + p.name for p in fn.params)
        mod.line(f"def {self.pyname}({params}):", fn.name_span)
        mod.indent += 1
        if self.growth_sites:
            sites = " = ".join(self.growth_sites.values())
            self.line(f"{sites} = {GROWTH}", fn.name_span)
        for st in self.append_sites:  # each site's count, before anything runs
            site = self.appends[id(st)]
            if id(st) in self.runs:
                self.line(f"_c{site[2:]} = 0", fn.name_span)
            elif isinstance(st.value.right, n.StrLit):
                self.line(f"{site} = _NOSTEP; _k{site[2:]} = 1", fn.name_span)
            else:
                self.line(f"{site} = 0", fn.name_span)
        if mod.hooked:
            self.line(
                mod.mark(f"_hk.call({self.site(fn.name_span)}, _locals())", fn.name_span, "hook"),
                fn.name_span,
            )
        self.body(fn.body.stmts)
        if mod.hooked:
            end = Span(
                mod.path,
                fn.body.span.end_line,
                fn.body.span.end_col - 1,
                fn.body.span.end_line,
                fn.body.span.end_col,
            )
            self.line(mod.mark(f"_hk.ret({self.site(end)}, None)", end, "hook"), end)
        mod.indent -= 1
        if self.calls_itself and self.level + 1 < STEP_LEVELS:
            FnEmitter(mod, fn, self.level + 1).emit()

    def body(self, stmts: list[n.Stmt]) -> None:
        """The fn's statements, its step taken before the first that can
        loop or call a fn (a call that returns before one costs none)."""
        charged = self.level > 0  # the fn itself took the step, a level or two up
        for s in stmts:
            if not charged and not _quiet(s):
                self.step()
                charged = True
            self.stmt(s)
        if not stmts:
            self.line("pass", None)

    def step(self) -> None:
        """The call's step: a `for` that breaks at once pulls it with FOR_ITER,
        cheaper than calling `next` (fib(25) 12.6 -> 11.8 ms)."""
        span = self.fn.name_span
        self.line("for _ in _C: break", span)
        self.line("else: " + self.mod.mark("_over()", span, "step"), span)

    def block(self, stmts: list[n.Stmt], new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append([])
        start = len(self.mod.lines)
        for s in stmts:
            self.stmt(s)
        if len(self.mod.lines) == start:
            self.line("pass", None)
        if new_scope:
            self.scopes.pop()

    def hook(self, span: Span) -> None:
        if self.mod.hooked:
            self.line(self.mod.mark(f"_hk.stmt({self.site(span)}, _locals())", span, "hook"), span)

    def stmt(self, s: n.Stmt) -> None:
        if not isinstance(s, (n.While, n.For)):
            self.hook(s.span)
        method = _STMT.get(s.__class__)
        if method is None:  # a class first seen: `_s_<Class>` by name, once
            method = _STMT[s.__class__] = getattr(FnEmitter, "_s_" + s.__class__.__name__)
        method(self, s)

    def _s_Let(self, s: n.Let) -> None:
        self.line(f"v_{s.name} = {self.expr(s.value)}", s.span)
        self.scopes[-1].append(s.name)

    def _s_ExprStmt(self, s: n.ExprStmt) -> None:
        e = s.expr
        form = (
            _STMT_FORMS.get(e.ref.name)
            if isinstance(e, n.MethodCall) and e.ref.kind == "native"
            else None
        )
        if form is None:
            self.line(self.expr(e), s.span)
            return
        grows = e.ref.name in _GROWS
        recv = self.simple(e.receiver, s.span) if grows else self.expr(e.receiver)
        args = [recv, *(self.expr(a) for a in e.args)]
        code = form.format(*(_paren(a) for a in args))
        self.line(self.mod.mark(code, e.span, f"native:{e.ref.name}"), s.span)
        if grows:
            self.grew(recv, e.span, s.span)

    def grew(self, container: str, at: Span, span: Span) -> None:
        """After a list or map may have grown: every GROWTH times this site
        runs, the meter holds the container (a countdown costs less than
        asking its length)."""
        if id(at) in self.watched:  # its range loop holds it, batch by batch
            return
        site = self.growth_sites[id(at)]
        check = self.mod.mark(f"_grew({container})", at, "meter")
        self.line(f"{site} -= 1", span)
        self.line(f"if not {site}: {site} = {check}", span)

    def _s_Return(self, s: n.Return) -> None:
        self.refund(self.loops, s.span)
        value = self.expr(s.value) if s.value is not None else "None"
        if self.mod.hooked:
            value = self.mod.mark(f"_hk.ret({self.site(s.span)}, {value})", s.span, "hook")
        self.line(f"return {value}", s.span)

    def _s_Break(self, s: n.Break) -> None:
        self.refund(self.loops[-1:], s.span)
        for end in self.batch_ends.get(len(self.loops) - 1, ()):  # the batch left part way
            self.line(end, s.span)
        self.line("break", s.span)

    def refund(self, loops: list[str | None], span: Span) -> None:
        """Leaving loops early: give back the steps they paid for iterations
        that will not run."""
        for code in loops:
            if code is not None:
                self.line(code, span)

    def _s_Continue(self, s: n.Continue) -> None:
        self.line("continue", s.span)

    def _s_If(self, s: n.If) -> None:
        for i, (cond, body) in enumerate(s.branches):
            self.line(f"{'if' if i == 0 else 'elif'} {self.expr(cond)}:", cond.span)
            self.indented(body)
        if s.orelse is not None:
            self.line("else:", s.orelse.span)
            self.indented(s.orelse)

    def indented(self, body: n.Block, head: list[str] | None = None) -> None:
        self.mod.indent += 1
        if head:
            self.scopes.append(head)
        self.block(body.stmts)
        if head:
            self.scopes.pop()
        self.mod.indent -= 1

    def _s_While(self, s: n.While) -> None:
        head = _header(s.span, s.cond.span)
        self.line("for _ in _C:", head)
        self.mod.indent += 1
        self.hook(head)
        if not (isinstance(s.cond, n.BoolLit) and s.cond.value):
            self.line(f"if not {_paren(self.expr(s.cond))}: break", s.cond.span)
        self.loops.append(None)
        self.block(s.body.stmts)
        self.loops.pop()
        self.mod.indent -= 1
        self.line("else:", head)
        self.line("    " + self.mod.mark("_over()", head, "step"), head)

    def _s_For(self, s: n.For) -> None:
        """A range loop charges its steps when it starts (all it can afford;
        `break` and `return` give back what is left), so it iterates a plain
        range. A loop over items with no loop inside charges a batch of them
        at a time (a List may grow while it is read: each batch is what is
        left then, up to RANGE_BATCH); another takes a step per item from `_C`."""
        head = _header(s.span, s.iterable.span)
        it, k = s.iterable, len(self.loops)
        batched = _innermost(s)
        watch = self.watches.get(id(s))
        watched = f", ({', '.join('v_' + name for name in watch)},)" if watch else ""
        if _is_range(it):
            args = ", ".join(self.expr(a) for a in it.args) + watched
            refund = f"_M.refund(_i{k})"
            if batched:
                self.batch_head(s, k, self.mod.mark(f"_M.batches({args})", head, "step"), head)
            else:
                self.line(f"_i{k} = {self.mod.mark(f'_M.loop({args})', head, 'step')}", head)
                self.line(f"for v_{s.name} in _i{k}:", head)
        else:
            source = f"_tuple({self.expr(it)})" if isinstance(it.ty, MapType) else self.expr(it)
            refund = f"_b{k}.refund()" if batched else None
            if batched:
                items = self.mod.mark(f"_M.items({source}{watched})", head, "step")
                self.line(f"_b{k} = {items}", head)
                self.batch_head(s, k, f"_b{k}", head)
            else:
                self.line(f"for v_{s.name} in _compress({source}, _C):", head)
        small = _is_range(it) and _counts_small(s)
        if small:
            self.small.add(f"v_{s.name}")
        self.scopes.append([s.name])
        self.loops.append(refund)
        self.mod.indent += 1
        self.hook(head)
        self.block(s.body.stmts)
        self.mod.indent -= 1
        self.loops.pop()
        self.scopes.pop()
        if small:
            self.small.discard(f"v_{s.name}")
        if batched:
            self.batch_end(s, k, head)
        elif not _is_range(it):  # the zip ended: for want of items, or of steps?
            self.line("else:", head)
            self.line("    if not _lh(_C): " + self.mod.mark("_over()", head, "step"), head)

    def batch_head(self, s: n.For, k: int, batches: str, head: Span) -> None:
        """A loop with no loop inside, as a loop over the batches the meter
        pays for around a plain loop over each; its literal appends are
        counted by how much the String grew in a batch."""
        self.line(f"for _i{k} in {batches}:", head)
        self.mod.indent += 1
        ends = []
        for site in self.runs_of(s):
            num, var = self.appends[id(site)][2:], f"v_{site.target.name}"
            self.line(f"_l{num} = len({var})", head)
            piece = len(site.value.right.value)
            call = f"_appended_run({var}, _l{num}, _c{num}, {piece})"
            ends.append(f"_c{num} = {self.mod.mark(call, site.value.span, 'meter')}")
        self.batch_ends[k] = ends
        self.line(f"for v_{s.name} in _i{k}:", head)

    def batch_end(self, s: n.For, k: int, head: Span) -> None:
        """After a batch: its appends; a `break` leaves the loop of batches too."""
        ends = self.batch_ends.pop(k)
        if any(isinstance(st, n.Break) for st in _statements(s.body)):
            self.line("else:", head)
            for end in [*ends, "continue"]:
                self.line("    " + end, head)
            self.line("break", head)
        else:
            for end in ends:
                self.line(end, head)
        self.mod.indent -= 1

    def runs_of(self, loop: n.For) -> list[n.Assign]:
        return [st for st in self.append_sites if self.runs.get(id(st)) is loop]

    def _s_Assign(self, s: n.Assign) -> None:
        target, value = s.target, s.value
        compound = isinstance(value, n.Binary) and value.left is target
        site = self.appends.get(id(s))
        if site is not None:  # `s = s + x`: CPython appends in place; charge in batches
            v = f"v_{target.name}"
            self.line(f"{v} = {v} + {self.expr(value.right)}", s.span)
            if id(s) in self.runs:  # its loop charges it batch by batch
                pass
            elif isinstance(value.right, n.StrLit):  # a known length: count the appends
                k = "_k" + site[2:]
                call = f"_appended_literal({v}, {k}, {len(value.right.value)})"
                charge = self.mod.mark(call, value.span, "meter")
                # the countdown pulls from an iterator of the appends left
                # before the next charge: an Int countdown costs a new Int
                # at every append past 256 (+= "x" 10^5 times 6.3 -> 5.7 ms)
                self.line(f"for _ in {site}: break", s.span)
                self.line(f"else: {k}, {site} = {charge}", s.span)
            else:  # count the length of every result, and charge by the batch
                charge = self.mod.mark(f"_appended({v}, {site})", value.span, "meter")
                self.line(f"if ({site} := {site} + len({v})) > _AB: {site} = {charge}", s.span)
        elif isinstance(target, n.Name):
            self.line(f"v_{target.name} = {self.expr(value)}", s.span)
        elif isinstance(target, n.FieldAccess):
            obj = self.simple(target.obj, s.span)
            place = f"{obj}.f_{target.name}"
            if compound:
                self.overrides[id(target)] = place
            self.line(f"{place} = {self.expr(value)}", s.span)
        else:
            self._assign_index(s, target, value, compound)

    def _assign_index(self, s: n.Assign, target: n.Index, value: n.Expr, compound: bool) -> None:
        obj = self.simple(target.obj, s.span)
        idx = self.simple(target.index, s.span)
        place = f"{obj}[{idx}]"
        is_map = isinstance(target.obj.ty, MapType)
        if is_map:
            if compound:
                self.overrides[id(target)] = self.mod.mark(place, target.span, "key")
        else:
            check = self.mod.mark(f"_oob({obj}, {idx})", target.span, "index")
            self.line(f"if not len({obj}) > {idx} >= 0: {check}", s.span)
            if compound:
                self.overrides[id(target)] = place
        self.line(f"{place} = {self.expr(value)}", s.span)
        if is_map:
            self.grew(obj, target.span, s.span)

    def simple(self, e: n.Expr, span: Span) -> str:
        """The expression's code if it is a local or literal, else a temp holding it."""
        code = self.expr(e)
        if _SIMPLE.match(code):
            return code
        t = self.temp()
        self.line(f"{t} = {code}", span)
        return t


_STMT: dict[type, object] = {}  # statement class -> its FnEmitter method


def _statements(body: n.Block) -> Iterator[n.Stmt]:
    """Every statement of a body, nested ones included (no recursion)."""
    blocks = [body]
    while blocks:
        for st in blocks.pop().stmts:
            yield st
            if isinstance(st, n.If):
                blocks += [b for _, b in st.branches] + ([st.orelse] if st.orelse else [])
            elif isinstance(st, n.While | n.For):
                blocks.append(st.body)


def _innermost(loop: n.For) -> bool:
    return not any(isinstance(st, n.While | n.For) for st in _statements(loop.body))


def _runs(stmts: list[n.Stmt]) -> dict[int, n.For]:
    """The literal append sites a loop charges by the batch (`id` of the site
    -> its loop): `s += "…"` of at most RUN_PIECE characters in a loop with
    no loop inside, the only statement there assigning `s`."""
    runs: dict[int, n.For] = {}
    for loop in stmts:
        if not (isinstance(loop, n.For) and _innermost(loop)):
            continue
        body = list(_statements(loop.body))
        assigned = Counter(
            st.name if isinstance(st, n.Let) else st.target.name
            for st in body
            if isinstance(st, n.Let) or (isinstance(st, n.Assign) and isinstance(st.target, n.Name))
        )
        for st in body:
            if _is_append(st) and isinstance(st.value.right, n.StrLit):
                piece = len(st.value.right.value)
                if 0 < piece <= RUN_PIECE and assigned[st.target.name] == 1:
                    runs[id(st)] = loop
    return runs


def _level_name(pyname: str, level: int) -> str:
    """`F3_fib` at level 0; `G1_F3_fib` at level 1, and so on (no other name
    starts with G)."""
    return f"G{level}_{pyname}" if level else pyname


def _quiet(st: n.Stmt) -> bool:
    """Can this statement neither loop nor call a fn? Then it does a bounded
    amount of work, which the step of the loop or call that ran it covers
    (natives charge their big work themselves and call no fn)."""
    todo: list[object] = [st]
    while todo:
        node = todo.pop()
        if isinstance(node, list | tuple):  # a list of nodes, or an if's (cond, block)
            todo += node
            continue
        if not isinstance(node, _NODES):
            continue
        if isinstance(node, n.While | n.For):
            return False
        if isinstance(node, n.Call | n.MethodCall):
            ref = node.func.ref if isinstance(node, n.Call) else node.ref
            if ref is None or ref.kind != "native":
                return False
        todo += [getattr(node, name) for name in node.__slots__]
    return True


_NODES = (n.Expr, n.Stmt, n.Block, n.FieldInit)


def _growth_spans(stmts: list[n.Stmt]) -> list[Span]:
    """The spans a growth check is keyed by: `push`/`insert` statements'
    calls, and index assignments into a map (of a body's statements)."""
    found = []
    for st in stmts:
        e = st.expr if isinstance(st, n.ExprStmt) else None
        if isinstance(e, n.MethodCall) and e.ref.kind == "native" and e.ref.name in _GROWS:
            found.append(e.span)
        elif isinstance(st, n.Assign) and isinstance(st.target, n.Index):
            if isinstance(st.target.obj.ty, MapType):
                found.append(st.target.span)
    return found


def _watches(stmts: list[n.Stmt]) -> tuple[dict[int, list[str]], set[int]]:
    """The containers each loop that pays for its items by the batch (a range
    loop, or a loop with no loop inside) watches, and the growth sites (by
    the id of their span) it watches them for. A push, insert or `m[k] = v`
    directly in such a loop's body (not in a loop inside it), on a local the
    body never assigns, grows one container for the whole loop: the loop
    hands it to the meter when it starts and at each batch it pays for
    (`Meter.loop`), so the site runs with no countdown."""
    watches: dict[int, list[str]] = {}
    watched: set[int] = set()
    for loop in stmts:
        if not (isinstance(loop, n.For) and (_is_range(loop.iterable) or _innermost(loop))):
            continue
        assigned = {
            st.target.name if isinstance(st, n.Assign) else st.name
            for st in _statements(loop.body)
            if isinstance(st, n.Let) or (isinstance(st, n.Assign) and isinstance(st.target, n.Name))
        }
        names: list[str] = []
        for span, container in _own_growth(loop.body):
            local = isinstance(container, n.Name) and container.ref is not None
            if local and container.ref.kind == "local" and container.name not in assigned:
                watched.add(id(span))
                if container.name not in names:
                    names.append(container.name)
        if names:
            watches[id(loop)] = names
    return watches, watched


def _own_growth(body: n.Block) -> Iterator[tuple[Span, n.Expr]]:
    """The growth sites of a loop body outside the loops inside it: each
    site's span and the container it grows."""
    blocks = [body]
    while blocks:
        for st in blocks.pop().stmts:
            if isinstance(st, n.If):
                blocks += [b for _, b in st.branches] + ([st.orelse] if st.orelse else [])
                continue
            e = st.expr if isinstance(st, n.ExprStmt) else None
            if isinstance(e, n.MethodCall) and e.ref.kind == "native" and e.ref.name in _GROWS:
                yield e.span, e.receiver
            elif isinstance(st, n.Assign) and isinstance(st.target, n.Index):
                if isinstance(st.target.obj.ty, MapType):
                    yield st.target.span, st.target.obj


SMALL_START = 1 << 40


def _counts_small(loop: n.For) -> bool:
    """Does the variable of this range loop hold small Ints only? Yes when
    the range starts at a literal under SMALL_START and the body never
    assigns the variable: it then stays below SMALL_START plus the
    iterations run, and 2**61 of them would take centuries."""
    start = loop.iterable.args[0]
    if not (isinstance(start, n.IntLit) and start.value < SMALL_START):
        return False
    return not any(
        isinstance(st, n.Assign) and isinstance(st.target, n.Name) and st.target.name == loop.name
        for st in _statements(loop.body)
    )


def _is_range(it: n.Expr) -> bool:
    return isinstance(it, n.Call) and it.func.ref.kind == "native" and it.func.ref.name == "range"


def _is_append(st: n.Stmt) -> bool:
    """Is this `s = s + x` (or `s += x`) on a String local?"""
    if not isinstance(st, n.Assign) or not isinstance(st.target, n.Name):
        return False
    v = st.value
    return (
        st.target.ty == STRING
        and isinstance(v, n.Binary)
        and v.op == "+"
        and isinstance(v.left, n.Name)
        and v.left.name == st.target.name
        and v.left.ref is not None
        and v.left.ref.kind == "local"
    )


def _header(stmt: Span, last: Span) -> Span:
    """A loop's header: from its keyword to the end of its condition."""
    return Span(stmt.path, stmt.line, stmt.col, last.end_line, last.end_col)
