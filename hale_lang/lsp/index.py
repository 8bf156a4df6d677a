"""Where each name of a checked module stands, and what it names.

After the checker has annotated a module (each expression's `ty`, each
name's `ref`, each local's type in `ModuleEnv.bindings`), one walk collects
an Occurrence for every name the author wrote, at its definition (an item,
a struct field, a host method, a parameter, a `let` or `for` variable) and
at every use. Each carries a key saying what it names, the same key at the
definition and at every use, whichever module the use is in:

    ("item", module, name)                 a const, fn, host fn, struct or host type
    ("member", module, owner, name)        a struct's field or a host type's method
    ("local", module, fn, name, line, col) a variable, by where it is declared
    ("alias", module, name)                an import alias, within its module
    ("module", path)                       a module, as an import names it
    ("native", name)                       a prelude function or builtin method
    ("type", name)                         a builtin type

Locals are told apart by their declaration, found with a stack of block
scopes as the checker keeps them (Hale has no shadowing, but a name may be
declared again once its block has closed). Occurrences are kept in source
order, so the name under a position is a bisection away; a definition and
the references of a key are lookups. The tree keeps no span for each part
of `alias::Item`, so those are found in the source text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .. import nodes as n
from ..diagnostics import Span
from ..resolver import GENERICS, ModuleEnv
from ..types import PRIMITIVES, StructType, Type

Key = tuple


@dataclass(frozen=True, slots=True)
class Occurrence:
    span: Span
    key: Key
    ty: Type | None = None
    is_def: bool = False


@dataclass(frozen=True, slots=True)
class Local:
    """A variable, and the region of the source where it is in scope."""

    name: str
    key: Key
    ty: Type | None
    at: Span
    until: tuple[int, int]  # the end of its block (line, col)
    fn: str


class Source:
    """A module's text, addressed by (line, col) as spans are."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(self, line: int, col: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1] + col - 1

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        return Span(self.path, *self.position(start), *self.position(end))

    def slice(self, span: Span) -> str:
        return self.text[
            self.offset(span.line, span.col) : self.offset(span.end_line, span.end_col)
        ]

    def parts(self, span: Span, parts: tuple[str, ...]) -> list[Span]:
        """The span of each identifier of `a::b`, found in order from `span`."""
        pos, out = self.offset(span.line, span.col), []
        for part in parts:
            m = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(part)}(?![A-Za-z0-9_])").search(
                self.text, pos
            )
            if m is None:
                break
            out.append(self.span(m.start(), m.end()))
            pos = m.end()
        return out


def name_span(span: Span, name: str) -> Span:
    """The name at the start of a span (`p: T`, `field: value`)."""
    return Span(span.path, span.line, span.col, span.line, span.col + len(name))


class Index:
    """Every name of one checked module, in source order."""

    def __init__(self, module: n.Module, text: str, env: ModuleEnv):
        self.module, self.env = module, env
        self.source = Source(text, module.path)
        walker = _Walker(self)
        walker.items(module)
        seen: set[tuple[Span, Key]] = set()
        self.occurrences: list[Occurrence] = []
        for o in sorted(walker.out, key=lambda o: (o.span.line, o.span.col, not o.is_def)):
            if (o.span, o.key) not in seen:  # `x += 1` holds `x` twice
                seen.add((o.span, o.key))
                self.occurrences.append(o)
        self.locals: list[Local] = walker.locals
        self.defs: dict[Key, Span] = {o.key: o.span for o in self.occurrences if o.is_def}
        self._starts = [(o.span.line, o.span.col) for o in self.occurrences]

    def at(self, line: int, col: int) -> Occurrence | None:
        """The name at a position (its end included, where a cursor stops)."""
        i = bisect.bisect_right(self._starts, (line, col))
        for o in self.occurrences[max(i - 2, 0) : i][::-1]:
            s = o.span
            if s.line == line and s.col <= col <= s.end_col:
                return o
        return None

    def uses(self, key: Key) -> list[Occurrence]:
        return [o for o in self.occurrences if o.key == key]

    def locals_at(self, line: int, col: int) -> list[Local]:
        """The variables in scope at a position, innermost last."""
        fn = self.fn_at(line)
        return [
            v
            for v in self.locals
            if v.fn == fn and (v.at.end_line, v.at.end_col) <= (line, col) <= v.until
        ]

    def fn_at(self, line: int) -> str:
        for item in self.module.items:
            if isinstance(item, n.FnDecl) and item.span.line <= line <= item.span.end_line:
                return item.name
        return ""

    def doc(self, line: int) -> str:
        """The `//` comment lines just above `line`, without their slashes."""
        lines = self.source.text.splitlines()
        out: list[str] = []
        k = line - 2
        while k >= 0 and lines[k].lstrip().startswith("//"):
            out.append(lines[k].lstrip()[2:].removeprefix(" "))
            k -= 1
        return "\n".join(reversed(out))


class _Walker:
    """Collects the occurrences and locals of one module (see the docstring)."""

    def __init__(self, index: Index):
        self.path, self.env, self.src = index.module.path, index.env, index.source
        self.out: list[Occurrence] = []
        self.locals: list[Local] = []
        self.scopes: list[tuple[dict[str, Key], tuple[int, int]]] = []
        self.fn = ""
        self._item = {
            n.Import: self._import,
            n.Const: self._const,
            n.StructDecl: self._struct,
            n.FnDecl: self._fn,
            n.HostFn: self._host_fn,
            n.HostTypeDecl: self._host_type,
        }
        self._stmt = {
            n.Let: self._let,
            n.Assign: lambda s: (self.expr(s.target), self.expr(s.value)),
            n.If: self._if,
            n.While: lambda s: (self.expr(s.cond), self.block(s.body)),
            n.For: self._for,
            n.Return: lambda s: s.value is not None and self.expr(s.value),
            n.ExprStmt: lambda s: self.expr(s.expr),
            n.Break: lambda s: None,
            n.Continue: lambda s: None,
        }
        self._expr = {
            n.Name: self._name,
            n.Path: self._path,
            n.StructLit: self._struct_lit,
            n.MethodCall: self._method_call,
            n.FieldAccess: self._field_access,
        }

    def add(self, span: Span, key: Key, ty: Type | None = None, is_def: bool = False) -> None:
        self.out.append(Occurrence(span, key, ty, is_def))

    # --- items --------------------------------------------------------------------

    def items(self, module: n.Module) -> None:
        for item in module.items:
            self.fn = ""
            self._item[type(item)](item)

    def _import(self, item: n.Import) -> None:
        self.add(item.name_span, ("alias", self.path, item.name), is_def=True)
        target = self.env.aliases.get(item.name)
        quoted = f'"{item.path}"'
        start = self.src.text.find(quoted, self.src.offset(item.span.line, item.span.col))
        if target is not None and start >= 0:
            self.add(self.src.span(start, start + len(quoted)), ("module", target))

    def _const(self, item: n.Const) -> None:
        sym = self.env.items.get(item.name)
        ty = sym.type if sym is not None and sym.node is item else None
        self.add(item.name_span, ("item", self.path, item.name), ty, True)
        if item.type is not None:
            self.type(item.type)
        self.scopes = [({}, (item.span.end_line, item.span.end_col))]
        self.expr(item.value)

    def _struct(self, item: n.StructDecl) -> None:
        sym = self.env.items.get(item.name)
        fields = sym.fields if sym is not None and sym.node is item else {}
        self.add(item.name_span, ("item", self.path, item.name), None, True)
        for f in item.fields:
            key = ("member", self.path, item.name, f.name)
            self.add(name_span(f.span, f.name), key, fields.get(f.name), True)
            self.type(f.type)

    def _fn(self, item: n.FnDecl) -> None:
        self.add(item.name_span, ("item", self.path, item.name), None, True)
        self.fn = item.name
        end = (item.body.span.end_line, item.body.span.end_col)
        self.scopes = [({}, end)]
        self._params(item, end)
        if item.ret is not None:
            self.type(item.ret)
        self.block(item.body)

    def _params(self, item: n.FnDecl | n.HostFn, end: tuple[int, int], owner: str = "") -> None:
        sym = self.env.items.get(owner or item.name)
        if owner and sym is not None:
            sym = sym.fields.get(item.name)
        types = sym.params if sym is not None and sym.node is item else ()
        for i, p in enumerate(item.params):
            ty = types[i] if i < len(types) else None
            self.bind(p.name, name_span(p.span, p.name), ty, end)
            self.type(p.type)

    def _host_fn(self, item: n.HostFn) -> None:
        self.add(item.name_span, ("item", self.path, item.name), None, True)
        self._host_params(item)

    def _host_params(self, item: n.HostFn, owner: str = "") -> None:
        self.fn = f"{owner}.{item.name}" if owner else item.name
        end = (item.span.end_line, item.span.end_col)
        self.scopes = [({}, end)]
        self._params(item, end, owner)
        if item.ret is not None:
            self.type(item.ret)

    def _host_type(self, item: n.HostTypeDecl) -> None:
        self.add(item.name_span, ("item", self.path, item.name), None, True)
        for m in item.methods:
            self.add(m.name_span, ("member", self.path, item.name, m.name), None, True)
            self._host_params(m, item.name)

    # --- types and qualified names ------------------------------------------------

    def type(self, t: n.TypeRef) -> None:
        spans = self.src.parts(t.span, t.path)
        if len(t.path) == 1 and spans:
            name = t.path[0]
            if name in PRIMITIVES or name in GENERICS:
                self.add(spans[0], ("type", name))
            elif name in self.env.items:
                self.add(spans[0], ("item", self.path, name))
        elif len(t.path) == 2:
            self.qualified(t.path, spans, None)
        for a in t.args:
            self.type(a)

    def qualified(self, parts: tuple[str, ...], spans: list[Span], ty: Type | None) -> None:
        """`alias::item`: the alias, then the item of the module it names."""
        if not spans:
            return
        self.add(spans[0], ("alias", self.path, parts[0]))
        target = self.env.aliases.get(parts[0])
        if target is not None and len(spans) == 2 and len(parts) == 2:
            self.add(spans[1], ("item", target, parts[1]), ty)

    # --- statements ---------------------------------------------------------------

    def block(self, b: n.Block) -> None:
        self.scopes.append(({}, (b.span.end_line, b.span.end_col)))
        for s in b.stmts:
            self._stmt[type(s)](s)
        self.scopes.pop()

    def bind(self, name: str, at: Span, ty: Type | None, until: tuple[int, int]) -> None:
        key = ("local", self.path, self.fn, name, at.line, at.col)
        self.scopes[-1][0][name] = key
        self.locals.append(Local(name, key, ty, at, until, self.fn))
        self.add(at, key, ty, True)

    def _let(self, s: n.Let) -> None:
        self.expr(s.value)
        if s.type is not None:
            self.type(s.type)
        self.bind(s.name, s.name_span, self.env.bindings.get(s.name_span), self.scopes[-1][1])

    def _if(self, s: n.If) -> None:
        for cond, body in s.branches:
            self.expr(cond)
            self.block(body)
        if s.orelse is not None:
            self.block(s.orelse)

    def _for(self, s: n.For) -> None:
        self.expr(s.iterable)
        self.scopes.append(({}, (s.body.span.end_line, s.body.span.end_col)))
        self.bind(s.name, s.name_span, self.env.bindings.get(s.name_span), self.scopes[-1][1])
        self.block(s.body)
        self.scopes.pop()

    # --- expressions --------------------------------------------------------------

    def expr(self, e: n.Expr) -> None:
        handler = self._expr.get(type(e))
        if handler is not None:
            handler(e)
        for child in children(e):
            self.expr(child)

    def local(self, name: str) -> Key | None:
        for names, _ in reversed(self.scopes):
            if name in names:
                return names[name]
        return None

    def _name(self, e: n.Name) -> None:
        ref = e.ref
        if ref is None:
            return
        if ref.kind == "local":
            key = self.local(e.name)
        elif ref.kind == "native":
            key = ("native", ref.name)
        else:
            key = ("item", ref.module, ref.name)
        if key is not None:
            self.add(e.span, key, e.ty)

    def _path(self, e: n.Path) -> None:
        self.qualified(e.parts, self.src.parts(e.span, e.parts), e.ty)

    def _struct_lit(self, e: n.StructLit) -> None:
        spans = self.src.parts(e.span, e.path)
        if len(e.path) == 1 and spans and e.ref is not None:
            self.add(spans[0], ("item", e.ref.module, e.ref.name), e.ty)
        elif len(e.path) == 2:
            self.qualified(e.path, spans, e.ty)
        if e.ref is None:
            return
        for f in e.fields:
            self.add(name_span(f.span, f.name), ("member", e.ref.module, e.ref.name, f.name))

    def _method_call(self, e: n.MethodCall) -> None:
        ref = e.ref
        if ref is None:
            return
        if ref.kind == "hostmethod":
            key = ("member", ref.module, ref.owner, ref.name)
        else:
            key = ("native", ref.name)
        self.add(e.method_span, key, e.ty)

    def _field_access(self, e: n.FieldAccess) -> None:
        t = e.obj.ty
        if isinstance(t, StructType):
            self.add(e.name_span, ("member", t.module, t.name, e.name), e.ty)


def children(e: n.Expr) -> Iterator[n.Expr]:
    """The expressions directly inside `e`."""
    c = type(e)
    if c is n.ListLit:
        yield from e.items
    elif c is n.MapLit:
        for k, v in e.entries:
            yield k
            yield v
    elif c is n.StructLit:
        yield from (f.value for f in e.fields)
    elif c is n.Call:
        yield e.func
        yield from e.args
    elif c is n.MethodCall:
        yield e.receiver
        yield from e.args
    elif c is n.FieldAccess:
        yield e.obj
    elif c is n.Index:
        yield e.obj
        yield e.index
    elif c is n.Binary:
        yield e.left
        yield e.right
    elif c is n.Unary:
        yield e.operand


def expressions(module: n.Module) -> Iterator[n.Expr]:
    """Every expression of a module, outermost first."""
    for item in module.items:
        if isinstance(item, n.Const):
            yield from _all(item.value)
        elif isinstance(item, n.FnDecl):
            yield from _in_block(item.body)


def _all(e: n.Expr) -> Iterator[n.Expr]:
    yield e
    for child in children(e):
        yield from _all(child)


def _in_block(b: n.Block) -> Iterator[n.Expr]:
    for s in b.stmts:
        c = type(s)
        if c is n.Let:
            yield from _all(s.value)
        elif c is n.Assign:
            yield from _all(s.target)
            yield from _all(s.value)
        elif c is n.If:
            for cond, body in s.branches:
                yield from _all(cond)
                yield from _in_block(body)
            if s.orelse is not None:
                yield from _in_block(s.orelse)
        elif c is n.While:
            yield from _all(s.cond)
            yield from _in_block(s.body)
        elif c is n.For:
            yield from _all(s.iterable)
            yield from _in_block(s.body)
        elif c is n.Return and s.value is not None:
            yield from _all(s.value)
        elif c is n.ExprStmt:
            yield from _all(s.expr)
