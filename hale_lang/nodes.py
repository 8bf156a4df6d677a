"""The Hale syntax tree.

The parser builds these nodes; the checker annotates them in place (each
expression's `ty`, each name's `ref`); the compiler reads the annotated tree
and emits Python. Every node has a `span` for diagnostics. Nodes are plain
slotted dataclasses so a parsed module pickles into the parse cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import Diagnostic, Span
from .types import Type


@dataclass(slots=True)
class Ref:
    """What a name resolves to, filled in by the checker.

    kind is one of:
      local    a `let`, parameter or `for` variable (`name` is the variable)
      const    a module constant               (module, name)
      fn       a Hale function                 (module, name)
      hostfn   a `host fn` the runtime binds   (module, name)
      native   a prelude function or builtin method (name: "len", "String.split";
               overload: its index in stdlib.prelude.natives_named(name))
      hostmethod a method of a `host type`     (module, owner=type name, name)
      struct   a struct type, for literals     (module, name)
    """

    kind: str
    module: str = ""
    name: str = ""
    owner: str = ""
    overload: int = 0


# --- types as written ------------------------------------------------------


@dataclass(slots=True)
class TypeRef:
    """A type as written: `Int`, `List<String>`, `dna::WorkRequest`; `ty` is
    what it means, stored by the resolver (ERROR where that failed)."""

    path: tuple[str, ...]
    args: list[TypeRef]
    span: Span
    ty: Type | None = field(default=None, kw_only=True)


# --- expressions -------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Expr:
    span: Span
    ty: Type | None = field(default=None, kw_only=True)


@dataclass(slots=True, eq=False)
class IntLit(Expr):
    value: int


@dataclass(slots=True, eq=False)
class StrLit(Expr):
    value: str  # escapes already decoded


@dataclass(slots=True, eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(slots=True, eq=False)
class ListLit(Expr):
    items: list[Expr]


@dataclass(slots=True, eq=False)
class MapLit(Expr):
    entries: list[tuple[Expr, Expr]]


@dataclass(slots=True, eq=False)
class Name(Expr):
    """A bare identifier: a local, or an item of the current module/prelude."""

    name: str
    ref: Ref | None = field(default=None, kw_only=True)


@dataclass(slots=True, eq=False)
class Path(Expr):
    """A qualified name `alias::item` (an imported module's item)."""

    parts: tuple[str, ...]
    ref: Ref | None = field(default=None, kw_only=True)


@dataclass(slots=True, eq=False)
class FieldInit:
    name: str
    value: Expr
    span: Span


@dataclass(slots=True, eq=False)
class StructLit(Expr):
    """`Name { a: 1, b: "x" }` or `alias::Name { … }`."""

    path: tuple[str, ...]
    fields: list[FieldInit]
    ref: Ref | None = field(default=None, kw_only=True)


@dataclass(slots=True, eq=False)
class Call(Expr):
    """`f(args)`; `func` is a Name or a Path (Hale has no first-class functions):
    the grammar takes any expression there, and the checker refuses the rest."""

    func: Expr
    args: list[Expr]


@dataclass(slots=True, eq=False)
class MethodCall(Expr):
    """`receiver.method(args)`; the checker sets `ref` to a native or hostmethod."""

    receiver: Expr
    method: str
    args: list[Expr]
    method_span: Span
    ref: Ref | None = field(default=None, kw_only=True)


@dataclass(slots=True, eq=False)
class FieldAccess(Expr):
    obj: Expr
    name: str
    name_span: Span


@dataclass(slots=True, eq=False)
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass(slots=True, eq=False)
class Binary(Expr):
    """op is one of: + - * / % == != < <= > >= && ||"""

    op: str
    left: Expr
    right: Expr


@dataclass(slots=True, eq=False)
class Unary(Expr):
    """op is `!` or `-`."""

    op: str
    operand: Expr


# --- statements ----------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Stmt:
    span: Span


@dataclass(slots=True, eq=False)
class Block:
    stmts: list[Stmt]
    span: Span


@dataclass(slots=True, eq=False)
class Let(Stmt):
    name: str
    type: TypeRef | None
    value: Expr
    name_span: Span


@dataclass(slots=True, eq=False)
class Assign(Stmt):
    """`target = value;` where target is a Name, FieldAccess or Index.
    Compound forms (`+=` …) are desugared by the parser into Binary."""

    target: Expr
    value: Expr


@dataclass(slots=True, eq=False)
class If(Stmt):
    """`if c1 { } else if c2 { } else { }`: branches in order, then else."""

    branches: list[tuple[Expr, Block]]
    orelse: Block | None


@dataclass(slots=True, eq=False)
class While(Stmt):
    cond: Expr
    body: Block


@dataclass(slots=True, eq=False)
class For(Stmt):
    """`for x in xs { }`: over a list's items, a map's keys, a string's chars."""

    name: str
    iterable: Expr
    body: Block
    name_span: Span


@dataclass(slots=True, eq=False)
class Break(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Continue(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(slots=True, eq=False)
class ExprStmt(Stmt):
    expr: Expr


# --- items -------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Param:
    name: str
    type: TypeRef
    span: Span


@dataclass(slots=True, eq=False)
class Item:
    name: str
    span: Span
    name_span: Span


@dataclass(slots=True, eq=False)
class Import(Item):
    """`import "vendor/dna" as dna;` — `name` is the alias."""

    path: str


@dataclass(slots=True, eq=False)
class Const(Item):
    type: TypeRef | None
    value: Expr


@dataclass(slots=True, eq=False)
class StructField:
    name: str
    type: TypeRef
    span: Span


@dataclass(slots=True, eq=False)
class StructDecl(Item):
    fields: list[StructField]


@dataclass(slots=True, eq=False)
class FnDecl(Item):
    params: list[Param]
    ret: TypeRef | None  # None: returns Void
    body: Block


@dataclass(slots=True, eq=False)
class HostFn(Item):
    """`host fn name(params) -> T;` — declared here, bound by the runtime."""

    params: list[Param]
    ret: TypeRef | None


@dataclass(slots=True, eq=False)
class HostTypeDecl(Item):
    """`host type Name { fn m(params) -> T; … }` — an opaque host object."""

    methods: list[HostFn]


@dataclass(slots=True, eq=False)
class BrokenItem(Item):
    """An item a syntax error cut short (or ran through). Its name is still
    declared, so its uses are not reported again: each is `ERROR`."""

    kind: str  # what it was: fn, const, struct, hostfn, hosttype, import


@dataclass(slots=True, eq=False)
class Comment:
    """A `//` comment, kept for the formatter."""

    text: str
    span: Span


@dataclass(slots=True, eq=False)
class Module:
    """One `.hl` file. `path` is relative to the genome root (or `std/…`).
    `errors` are its syntax errors, all of them; with any, the items that
    contain one are `BrokenItem`s."""

    path: str
    items: list[Item]
    comments: list[Comment] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
