"""How deep a program may nest, checked before anything recursive sees it.

The checker, the compiler and CPython's own parser and compiler all recurse
on the nesting of what they read, and each has a limit of its own (CPython:
200 open brackets on a line, 100 levels of indentation, 20 nested loops, a
recursion limit). Hale has one designed limit per kind of nesting, below
all of them, so a program either nests within these, and everything
downstream handles it, or gets a diagnostic naming the limit:

- an expression nests at most MAX_EXPR_DEPTH levels (E0319); the operands
  of one chain `a + b - c …` (a left-leaning run of operators of one
  precedence, comparisons excepted) are one level, however long the chain,
  since the checker, the compiler and the formatter walk chains with loops;
- blocks nest at most MAX_BLOCK_DEPTH levels in a fn (E0320), and loops at
  most MAX_LOOP_DEPTH (E0321);
- a written type nests at most MAX_TYPE_DEPTH levels (E0322).

`depth_errors(module)` walks a module with an explicit stack (so a program
nested a million deep is measured without recursion) and reports, per item,
the first place it passes a limit. `headroom()` lends the recursive passes
the stack they need for programs within the limits, whatever depth their
caller already runs at.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from . import nodes as n
from .diagnostics import Diagnostic, Span

MAX_EXPR_DEPTH = 48
MAX_BLOCK_DEPTH = 64
MAX_LOOP_DEPTH = 16
MAX_TYPE_DEPTH = 32
MAX_CALL_DEPTH = 1000  # frames a call's stack holds (see program.Program._run)
CHAIN_INLINE = 16  # the compiler emits a longer chain as a helper fn

# Binary operators that chain: one level however many follow each other.
CHAIN_GROUP = {"+": "add", "-": "add", "*": "mul", "/": "mul", "%": "mul", "&&": "and", "||": "or"}

_HELP_EXPR = "name the inner parts with `let` variables"
_HELP_BLOCK = "move the inner blocks into a fn of their own"


def depth_errors(module: n.Module) -> list[Diagnostic]:
    """A diagnostic for each item of `module` that nests past a limit."""
    out: list[Diagnostic] = []
    for item in module.items:
        found = _item_error(item)
        if found is not None:
            out.append(found)
    return out


def item_error(item: n.Item) -> Diagnostic | None:
    """The depth diagnostic of one item, if it nests past a limit."""
    return _item_error(item)


def _item_error(item: n.Item) -> Diagnostic | None:
    types: list[n.TypeRef | None] = []
    exprs: list[n.Expr] = []
    if isinstance(item, n.Const):
        types.append(item.type)
        exprs.append(item.value)
    elif isinstance(item, n.StructDecl):
        types += [f.type for f in item.fields]
    elif isinstance(item, n.FnDecl | n.HostFn):
        types += [p.type for p in item.params] + [item.ret]
    elif isinstance(item, n.HostTypeDecl):
        types += [t for m in item.methods for t in (*(p.type for p in m.params), m.ret)]
    for t in types:
        if t is not None and (found := _type_error(t)) is not None:
            return found
    if isinstance(item, n.FnDecl):
        return _body_error(item.body)
    for e in exprs:
        if (found := expr_error(e)) is not None:
            return found
    return None


def _type_error(t: n.TypeRef) -> Diagnostic | None:
    found = _deeper_than(t, MAX_TYPE_DEPTH, lambda ref, d: [(a, d + 1) for a in ref.args])
    if found is None:
        return None
    msg = f"this type nests deeper than {MAX_TYPE_DEPTH} levels"
    return Diagnostic("E0322", msg, found.span, "name a struct for the inner part")


def _deeper_than(root, limit: int, kids):
    """The first node deeper than `limit` under `root` (which is at depth
    1), walking `kids(node, depth)` with an explicit stack; or None."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        stack += kids(node, depth)
    return None


def _body_error(body: n.Block) -> Diagnostic | None:
    """Blocks, loops, then the expressions of every statement."""
    stack: list[tuple[n.Block, int, int]] = [(body, 0, 0)]
    exprs: list[n.Expr] = []
    while stack:
        block, depth, loops = stack.pop()
        for s in block.stmts:
            inner = _blocks_of(s)
            is_loop = isinstance(s, n.While | n.For)
            if inner and depth + 1 > MAX_BLOCK_DEPTH:
                msg = f"blocks nest deeper than {MAX_BLOCK_DEPTH} levels here"
                return Diagnostic("E0320", msg, _head(s), _HELP_BLOCK)
            if is_loop and loops + 1 > MAX_LOOP_DEPTH:
                msg = f"loops nest deeper than {MAX_LOOP_DEPTH} levels here"
                return Diagnostic("E0321", msg, _head(s), _HELP_BLOCK)
            stack += [(b, depth + 1, loops + is_loop) for b in inner]
            exprs += _exprs_of(s)
    for e in exprs:
        if (found := expr_error(e)) is not None:
            return found
    return None


def _blocks_of(s: n.Stmt) -> list[n.Block]:
    if isinstance(s, n.If):
        return [b for _, b in s.branches] + ([s.orelse] if s.orelse is not None else [])
    if isinstance(s, n.While | n.For):
        return [s.body]
    return []


def _exprs_of(s: n.Stmt) -> list[n.Expr]:
    if isinstance(s, n.Let):
        return [s.value]
    if isinstance(s, n.Assign):
        return [s.target, s.value]
    if isinstance(s, n.If):
        return [c for c, _ in s.branches]
    if isinstance(s, n.While):
        return [s.cond]
    if isinstance(s, n.For):
        return [s.iterable]
    if isinstance(s, n.Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, n.ExprStmt):
        return [s.expr]
    return []


def _head(s: n.Stmt) -> Span:
    """A block statement's keyword."""
    width = {n.If: 2, n.While: 5, n.For: 3}.get(type(s), 1)
    return Span(s.span.path, s.span.line, s.span.col, s.span.line, s.span.col + width)


def expr_error(e: n.Expr) -> Diagnostic | None:
    """E0319 at the first subexpression of `e` that passes MAX_EXPR_DEPTH."""
    sp = e.span
    if sp.line == sp.end_line and sp.end_col - sp.col <= MAX_EXPR_DEPTH:
        return None  # each level is nested inside, so at least a character shorter
    found = _deeper_than(e, MAX_EXPR_DEPTH, children)
    if found is None:
        return None
    msg = f"this expression nests deeper than {MAX_EXPR_DEPTH} levels"
    return Diagnostic("E0319", msg, found.span, _HELP_EXPR)


def children(e: n.Expr, depth: int) -> list[tuple[n.Expr, int]]:
    """The subexpressions of `e` with their depths (a chain's left operand
    stays at its parent's depth)."""
    cls = e.__class__
    d = depth + 1
    if cls is n.Binary:
        group = CHAIN_GROUP.get(e.op)
        left = e.left
        same = (
            left.__class__ is n.Binary and group is not None and CHAIN_GROUP.get(left.op) == group
        )
        return [(left, depth if same else d), (e.right, d)]
    if cls is n.Unary:
        return [(e.operand, d)]
    if cls is n.Call:  # the callee too: `(…)(x)` parses, and the checker walks it
        return [(e.func, d), *((a, d) for a in e.args)]
    if cls is n.MethodCall:
        return [(e.receiver, d), *((a, d) for a in e.args)]
    if cls is n.FieldAccess:
        return [(e.obj, d)]
    if cls is n.Index:
        return [(e.obj, d), (e.index, d)]
    if cls is n.ListLit:
        return [(x, d) for x in e.items]
    if cls is n.MapLit:
        return [(x, d) for kv in e.entries for x in kv]
    if cls is n.StructLit:
        return [(f.value, d) for f in e.fields]
    return []


def current_depth() -> int:
    """The interpreter's recursion depth in this thread, as the caller sees
    it: its Python frames, and the C calls that count against the same limit
    (CPython tells it only in the refusal to set a limit below it)."""
    try:
        sys.setrecursionlimit(1)
    except RecursionError as e:
        found = _DEPTH.search(str(e))
        if found:
            return int(found.group(1)) - 2  # not this frame, nor the count's own
    depth, f = 0, sys._getframe(1)  # an interpreter that says nothing: count frames
    while f is not None:
        depth += 1
        f = f.f_back
    return depth


_DEPTH = re.compile(r"recursion depth (\d+)")


@contextmanager
def headroom(frames: int = 4000) -> Iterator[None]:
    """At least `frames` more Python frames allowed than are running now.
    A recursive pass over a program within the limits needs far fewer; on
    CPython 3.11 Python-to-Python calls take no C stack, so lending them is
    safe."""
    old = sys.getrecursionlimit()
    want = current_depth() + frames
    if want > old:
        sys.setrecursionlimit(want)
    try:
        yield
    finally:
        if want > old:
            sys.setrecursionlimit(old)
