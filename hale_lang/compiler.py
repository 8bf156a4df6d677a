"""Compiling checked Hale modules to Python code objects.

One pass over each checked module emits Python source text: one `def` per
Hale fn (parameters and `let`s become fast locals named `v_<name>`; the
checker forbids shadowing, so a name is one variable per function), one
`__init__` per struct, one initialiser per const. Every top-level name is
mangled with its module's index (`F3_main`, `S0_WorkRequest`, `C2_LIMIT`),
so all modules share one namespace and no Hale identifier can ever name a
Python object. The source is compiled with `compile()`; nothing walks the
tree at run time.

A module can be emitted in a second variant with debug hook calls
(`_hk.stmt` before each statement, `_hk.call` on entry, `_hk.ret` on
return); a build emits only the plain one, so code with no hook attached
pays nothing for hooks, and the hooked one is emitted when a debugger
first attaches (`hooked_variants`).

While emitting, every expression that can fail is wrapped in invisible
markers; when a line is finished the markers are stripped and their column
ranges recorded with the Hale span and a tag saying what could fail there
(`div/`, `key`, `native:String.split`, `step`, …). That line map is how
`runtime.diagnose` turns a Python exception back into a Hale diagnostic.

Semantics fixed here: Int `/` and `%` floor (Python's `//` and `%`:
`-7 / 2 == -4`, `-7 % 2 == 1`, the remainder takes the divisor's sign);
lists, maps and structs are shared references; a const of a mutable type is
copied on every read, so no module (its own included) can change it.
"""

from __future__ import annotations

import marshal
import re
from dataclasses import dataclass, field

from stdlib.prelude import natives_named

from . import nodes as n
from .diagnostics import Span
from .loader import LoadedProgram
from .meter import GROWTH, LIST_PER_STEP, SMALL_INT, STR_PER_STEP
from .runtime import TEMPLATE_BUILTINS, native_pyname
from .types import (
    BOOL,
    ERROR,
    INT,
    JSON,
    STRING,
    VOID,
    HostType,
    ListType,
    MapType,
    Type,
)

_OPEN, _MID, _CLOSE = "\x01", "\x02", "\x03"
_MARK = re.compile("\x01(\\d+)\x02|\x03")
_IDENT = re.compile(r"(?<![.\w])([A-Za-z_]\w*)")
_SIMPLE = re.compile(r"^(v_\w+|-?\d+|True|False|None)$")
_IMMUTABLE = (INT, STRING, BOOL)

# Statement forms for Void natives used as statements (faster than a call).
_STMT_FORMS = {
    "Map.insert": "{0}[{1}] = {2}",
    "Map.remove": "{0}.pop({1}, None)",
    "List.push": "{0}.append({1})",
}
_GROWS = {"Map.insert", "List.push"}  # a container held by the meter as it grows

# Binary operators that chain flat (left-associative in Python as in Hale);
# comparisons don't, since Python chains `a == b == c` differently.
_GROUP = {"+": "add", "-": "add", "*": "mul", "/": "mul", "%": "mul", "&&": "and", "||": "or"}
_PYOP = {"+": "+", "-": "-", "&&": "and", "||": "or"}
_SMALL = str(SMALL_INT)
_NEG_SMALL = f"-{SMALL_INT}"


# --- what the compiler hands on (plain data: pickled into the build cache) -------


@dataclass
class FnMeta:
    module: str
    name: str
    pyname: str
    params: tuple[str, ...]
    param_types: tuple[Type, ...]
    ret: Type


@dataclass
class StructMeta:
    module: str
    name: str
    pyname: str
    fields: tuple[str, ...]
    types: tuple[Type, ...]


@dataclass
class ConstMeta:
    module: str
    name: str
    pyname: str
    init: str
    type: Type


@dataclass
class HostMeta:
    """A `host fn`, or one method of a `host type` (owner set)."""

    module: str
    name: str
    owner: str
    pyname: str
    span: Span
    ret: Type
    referenced: bool = False

    @property
    def key(self) -> str:
        return f"{self.module}::{self.owner or self.name}"

    @property
    def label(self) -> str:
        return f"method `{self.owner}.{self.name}`" if self.owner else f"fn `{self.name}`"


@dataclass
class HostTypeMeta:
    module: str
    name: str
    span: Span
    methods: list[HostMeta] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.module}::{self.name}"


@dataclass
class ModuleArtifact:
    path: str
    index: int
    code: bytes  # marshalled plain module code
    linemap: bytes  # marshalled, see runtime.LineMap
    labels: dict[str, str]  # Python function name -> Hale name for traces
    fns: list[FnMeta]
    structs: list[StructMeta]
    consts: list[ConstMeta]
    host_fns: list[HostMeta]
    host_types: list[HostTypeMeta]


def filename(path: str, hooked: bool) -> str:
    return f"<hale{'-debug' if hooked else ''}:{path}>"


def compile_program(program: LoadedProgram) -> list[ModuleArtifact]:
    """Compile every module of a checked program, in load order."""
    index = {path: i for i, path in enumerate(program.modules)}
    referenced: set[tuple[str, str, str]] = set()
    artifacts = [_compile_module(program, path, index, referenced) for path in program.modules]
    for a in artifacts:
        hosts = a.host_fns + [m for t in a.host_types for m in t.methods]
        for h in hosts:
            h.referenced = (h.module, h.owner, h.name) in referenced
    return artifacts


def _compile_module(
    program: LoadedProgram, path: str, index: dict[str, int], referenced: set
) -> ModuleArtifact:
    module = program.modules[path]
    names = Names(program, path, index)
    plain = ModuleEmitter(module, names, hooked=False).emit()
    code = compile(plain.source, filename(path, False), "exec", dont_inherit=True, optimize=2)
    referenced |= names.referenced_hosts
    meta = names.metadata(module)
    return ModuleArtifact(
        path=path,
        index=index[path],
        code=marshal.dumps(code),
        linemap=plain.linemap,
        labels=plain.labels,
        host_fns=[h for h in meta["hosts"] if not h.owner],
        fns=meta["fns"],
        structs=meta["structs"],
        consts=meta["consts"],
        host_types=meta["host_types"],
    )


def hooked_variants(program: LoadedProgram) -> dict[str, Emitted]:
    """The debug-hooked source of every module of a checked program: built
    only when a debugger attaches, so a plain build never pays for it."""
    index = {path: i for i, path in enumerate(program.modules)}
    return {
        path: ModuleEmitter(program.modules[path], Names(program, path, index), hooked=True).emit()
        for path in program.modules
    }


# --- names and written types -----------------------------------------------------


class Names:
    """Mangled Python names of every item a module can reach, and the
    metadata (signatures with the checker's types) the host sees."""

    def __init__(self, program: LoadedProgram, path: str, index: dict[str, int]):
        self.program, self.path, self.index = program, path, index
        self.referenced_hosts: set[tuple[str, str, str]] = set()
        self.structs: dict[str, dict[str, n.StructDecl]] = {}

    def item(self, prefix: str, module: str, name: str) -> str:
        return f"{prefix}{self.index[module]}_{name}"

    def host(self, module: str, owner: str, name: str) -> str:
        self.referenced_hosts.add((module, owner, name))
        if owner:
            return f"M{self.index[module]}_{owner}_{name}"
        return self.item("H", module, name)

    def metadata(self, module: n.Module) -> dict:
        path, out = self.path, {"fns": [], "structs": [], "consts": [], "hosts": []}
        out["host_types"] = []
        for item in module.items:
            if isinstance(item, n.FnDecl):
                types = tuple(_written(p.type) for p in item.params)
                params = tuple(p.name for p in item.params)
                pyname = self.item("F", path, item.name)
                out["fns"].append(
                    FnMeta(path, item.name, pyname, params, types, _written(item.ret))
                )
            elif isinstance(item, n.StructDecl):
                fields = tuple(f.name for f in item.fields)
                types = tuple(_written(f.type) for f in item.fields)
                pyname = self.item("S", path, item.name)
                out["structs"].append(StructMeta(path, item.name, pyname, fields, types))
            elif isinstance(item, n.Const):
                ty = item.value.ty if item.type is None else _written(item.type)
                init = self.item("K", path, item.name)
                pyname = self.item("C", path, item.name)
                out["consts"].append(ConstMeta(path, item.name, pyname, init, ty or ERROR))
            elif isinstance(item, n.HostFn):
                out["hosts"].append(self._host(item, ""))
            elif isinstance(item, n.HostTypeDecl):
                ht = HostTypeMeta(path, item.name, item.name_span)
                ht.methods = [self._host(m, item.name) for m in item.methods]
                out["host_types"].append(ht)
        return out

    def _host(self, item: n.HostFn, owner: str) -> HostMeta:
        idx = self.index[self.path]
        pyname = f"M{idx}_{owner}_{item.name}" if owner else self.item("H", self.path, item.name)
        return HostMeta(self.path, item.name, owner, pyname, item.name_span, _written(item.ret))


def _written(t: n.TypeRef | None) -> Type:
    """A written type as the checker resolved it (no type written: Void)."""
    return VOID if t is None else t.ty or ERROR


# --- emitting ----------------------------------------------------------------------


@dataclass
class Emitted:
    source: str
    linemap: bytes
    labels: dict[str, str]


class ModuleEmitter:
    """Python source for one module, in one variant (plain or hooked)."""

    def __init__(self, module: n.Module, names: Names, hooked: bool):
        self.module, self.names, self.hooked = module, names, hooked
        self.path = module.path
        self.lines: list[str] = []
        self.stmt_spans: list[list[int] | None] = []
        self.ranges: dict[int, list[list[int]]] = {}
        self.marks: list[tuple[list[int], str]] = []
        self.labels: dict[str, str] = {}
        self.indent = 0

    def emit(self) -> Emitted:
        for item in self.module.items:
            if isinstance(item, n.FnDecl):
                FnEmitter(self, item).emit()
            elif isinstance(item, n.StructDecl):
                self._struct_init(item)
            elif isinstance(item, n.Const):
                self._const_init(item)
        linemap = marshal.dumps(
            {"lines": self.stmt_spans, "ranges": self.ranges, "marks": self.marks}
        )
        source = "\n".join(self.lines) + "\n"
        return Emitted(source, linemap, self.labels)

    # --- lines and marks -------------------------------------------------

    def mark(self, code: str, span: Span, tag: str) -> str:
        self.marks.append(([span.line, span.col, span.end_line, span.end_col], tag))
        return f"{_OPEN}{len(self.marks) - 1}{_MID}{code}{_CLOSE}"

    def line(self, text: str, span: Span | None) -> None:
        prefix = "    " * self.indent
        lineno = len(self.lines) + 1
        if _OPEN in text:
            text = self._strip(text, len(prefix), lineno)
        self.lines.append(prefix + text)
        self.stmt_spans.append(
            [span.line, span.col, span.end_line, span.end_col] if span is not None else None
        )

    def _strip(self, text: str, offset: int, lineno: int) -> str:
        out: list[str] = []
        col, pos, stack = offset, 0, []
        found = self.ranges.setdefault(lineno, [])
        for m in _MARK.finditer(text):
            chunk = text[pos : m.start()]
            out.append(chunk)
            col += len(chunk)
            pos = m.end()
            if m.group(1) is not None:
                stack.append((int(m.group(1)), col))
            else:
                mark, start = stack.pop()
                found.append([start, col, mark])
        out.append(text[pos:])
        return "".join(out)

    # --- items other than fns ----------------------------------------------

    def _struct_init(self, item: n.StructDecl) -> None:
        fields = [f"f_{f.name}" for f in item.fields]
        pyname = self.names.item("S", self.path, item.name)
        self.line(f"def _init_{pyname}(self, {', '.join(fields)}):", item.span)
        for f in fields:
            self.line(f"    self.{f} = {f}", item.span)
        if not fields:
            self.line("    pass", item.span)

    def _const_init(self, item: n.Const) -> None:
        init = self.names.item("K", self.path, item.name)
        self.labels[init] = f"const {item.name}"
        self.line(f"def {init}():", item.span)
        self.indent += 1
        self.line(f"return {ExprEmitter(self, {}).expr(item.value)}", item.value.span)
        self.indent -= 1


class ExprEmitter:
    """Python expression text for Hale expressions (with marks)."""

    def __init__(self, mod: ModuleEmitter, overrides: dict[int, str]):
        self.mod, self.names = mod, mod.names
        self.overrides = overrides  # id(expr) -> code already computed for it
        self.temps = 0

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def expr(self, e: n.Expr) -> str:
        code = self.overrides.get(id(e))
        if code is not None:
            return code
        return getattr(self, "_" + e.__class__.__name__)(e)

    def _IntLit(self, e: n.IntLit) -> str:
        # hex has no digit limit in Python's parser; decimal stops at 4,300
        return str(e.value) if e.value < SMALL_INT else hex(e.value)

    def _StrLit(self, e: n.StrLit) -> str:
        return ascii(e.value)

    def _BoolLit(self, e: n.BoolLit) -> str:
        return "True" if e.value else "False"

    def _ListLit(self, e: n.ListLit) -> str:
        return "[" + ", ".join(self.expr(x) for x in e.items) + "]"

    def _MapLit(self, e: n.MapLit) -> str:
        return "{" + ", ".join(f"{self.expr(k)}: {self.expr(v)}" for k, v in e.entries) + "}"

    def _Name(self, e: n.Name) -> str:
        ref = e.ref
        if ref is not None and ref.kind == "local":
            return "v_" + e.name
        return self._item_value(e)

    def _Path(self, e: n.Path) -> str:
        return self._item_value(e)

    def _item_value(self, e: n.Name | n.Path) -> str:
        ref = e.ref
        if ref is None or ref.kind != "const":
            raise CompileError(f"unresolved name at {e.span}")
        code = self.mod.mark(
            self.names.item("C", ref.module, ref.name), e.span, f"const:{ref.name}"
        )
        return _copy_of(code, e.ty)

    def _StructLit(self, e: n.StructLit) -> str:
        ref = e.ref
        cls = self.names.item("S", ref.module, ref.name)
        decl = _struct_decl(self.names, ref.module, ref.name)
        order = [f.name for f in decl.fields] if decl else []
        given = [f.name for f in e.fields]
        if given == order:
            args = ", ".join(self.expr(f.value) for f in e.fields)
        else:
            args = ", ".join(f"f_{f.name}={self.expr(f.value)}" for f in e.fields)
        return f"{cls}({args})"

    def _Call(self, e: n.Call) -> str:
        ref = e.func.ref
        args = [self.expr(a) for a in e.args]
        types = [a.ty for a in e.args]
        if ref.kind == "fn":
            code = f"{self.names.item('F', ref.module, ref.name)}({', '.join(args)})"
            return self.mod.mark(code, e.span, "call")
        if ref.kind == "hostfn":
            code = f"{self.names.host(ref.module, '', ref.name)}({', '.join(args)})"
            return self.mod.mark(code, e.span, f"host:fn `{ref.name}`")
        return self.native(ref, args, types, e.span)

    def _MethodCall(self, e: n.MethodCall) -> str:
        ref = e.ref
        args = [self.expr(e.receiver), *(self.expr(a) for a in e.args)]
        types = [e.receiver.ty, *(a.ty for a in e.args)]
        if ref.kind == "hostmethod":
            code = f"{self.names.host(ref.module, ref.owner, ref.name)}({', '.join(args)})"
            return self.mod.mark(code, e.span, f"host:method `{ref.owner}.{ref.name}`")
        return self.native(ref, args, types, e.span)

    def native(self, ref: n.Ref, args: list[str], types: list, span: Span) -> str:
        nat = natives_named(ref.name)[ref.overload]
        template = _specialised(nat.name, types, args) or nat.inline
        if template is not None and _inlinable(template):
            code = template.format(*(_paren(a) for a in args))
        else:
            code = f"{native_pyname(ref.name, ref.overload)}({', '.join(args)})"
        return self.mod.mark(code, span, f"native:{ref.name}")

    def _FieldAccess(self, e: n.FieldAccess) -> str:
        return f"{_paren(self.expr(e.obj))}.f_{e.name}"

    def _Index(self, e: n.Index) -> str:
        ot = e.obj.ty
        obj, idx = self.expr(e.obj), self.expr(e.index)
        if isinstance(ot, MapType):
            return self.mod.mark(f"{_paren(obj)}[{idx}]", e.span, "key")
        if ot == JSON:
            name = "Json.get" if e.index.ty == STRING else "Json.at"
            return self.mod.mark(
                f"{native_pyname(name, 0)}({obj}, {idx})", e.span, f"native:{name}"
            )
        return self.mod.mark(self.checked_index(obj, idx), e.span, "index")

    def checked_index(self, obj: str, idx: str) -> str:
        """`obj[idx]` for a list or string, refusing what Python would wrap around."""
        o = obj if _SIMPLE.match(obj) else None
        i = idx if _SIMPLE.match(idx) else None
        ob, ib = o or self.temp(), i or self.temp()
        obind = ob if o else f"({ob} := {obj})"
        ibind = ib if i else f"({ib} := {idx})"
        return f"({ob}[{ib}] if len({obind}) > {ibind} >= 0 else _oob({ob}, {ib}))"

    def _Binary(self, e: n.Binary) -> str:
        group = _GROUP.get(e.op)
        if group is None:
            return self._compare(e)
        spine = [e]  # a chain `a + b - c …` leans left: walk it with a loop
        left = e.left
        while left.__class__ is n.Binary and _GROUP.get(left.op) == group:
            spine.append(left)
            left = left.left
        spine.reverse()
        acc = self.expr(left)
        if group == "mul":
            for b in spine:
                acc = self._mul_op(b, acc, self.expr(b.right))
            return acc
        ops = "".join(f" {_PYOP[b.op]} {self.expr(b.right)}" for b in spine)
        if group == "add" and e.ty == STRING:
            code = f"(_r if len(_r := {acc}{ops}) < {STR_PER_STEP} else _concat(_r, {len(spine)}))"
            return self.mod.mark(code, e.span, "meter")
        return f"({acc}{ops})"

    def _compare(self, e: n.Binary) -> str:
        left, right = self.expr(e.left), self.expr(e.right)
        if e.left.ty == JSON:
            code = f"_jeq({left}, {right})"
            return code if e.op == "==" else f"(not {code})"
        return f"({left} {e.op} {right})"

    def _mul_op(self, e: n.Binary, left: str, right: str) -> str:
        """`*`, `/` or `%` on Ints: inline while both operands are below 2**62
        (a divisor may be any size), else through the meter, which charges
        by the digit counts."""
        op, slow = {"*": ("*", "_mul"), "/": ("//", "_floordiv"), "%": ("%", "_mod")}[e.op]
        first_l, l_val = self.bind(left)
        first_r, r_val = self.bind(right)
        checks = [] if _small_literal(left) else [f"{_NEG_SMALL} < {first_l} < {_SMALL}"]
        if first_r != r_val:  # bound here, after the left operand, whatever it holds
            checks.append(f"{_NEG_SMALL} < {first_r} < {_SMALL}")
            cond = " & ".join(f"({c})" for c in checks)
        else:
            if op == "*" and not _small_literal(right):
                checks.append(f"{_NEG_SMALL} < {r_val} < {_SMALL}")
            cond = " and ".join(checks)
        if checks:
            code = f"({l_val} {op} {r_val} if {cond} else {slow}({l_val}, {r_val}))"
        else:
            code = f"({l_val} {op} {r_val})"
        tag = {"*": "meter", "/": "div/", "%": "div%"}[e.op]
        return self.mod.mark(code, e.span, tag)

    def bind(self, code: str) -> tuple[str, str]:
        """(the code that evaluates `code` once, the code that reads it after)."""
        if _SIMPLE.match(code):
            return code, code
        t = self.temp()
        return f"({t} := {code})", t

    def _Unary(self, e: n.Unary) -> str:
        operand = self.expr(e.operand)
        return f"(not {operand})" if e.op == "!" else f"(-{operand})"


class CompileError(Exception):
    """An annotation the checker should have filled is missing (a bug)."""


def _small_literal(code: str) -> bool:
    return len(code) < 19 and code.lstrip("-").isdigit()


def _paren(code: str) -> str:
    if _SIMPLE.match(code) or code.startswith(("(", "[", "{")) and _balanced_whole(code):
        return code
    return f"({code})"


def _balanced_whole(code: str) -> bool:
    """Does the bracket opening `code` close at its very end? (Strings are
    `ascii()` literals, whose quotes may hold brackets; be conservative.)"""
    if "'" in code or '"' in code:
        return False
    depth = 0
    for i, ch in enumerate(code):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i == len(code) - 1
    return False


def _specialised(name: str, types: list, args: list[str]) -> str | None:
    """A faster inline form the static types allow (same result as the native)."""
    if name == "to_string" and types[0] in _TEXT_FORMS:
        return _TEXT_FORMS[types[0]]
    return None


_TEXT_FORMS = {
    INT: f"(_str(_r) if {-SMALL_INT} < (_r := {{0}}) < {SMALL_INT} else _itext(_r))",
    STRING: "{0}",
    BOOL: "('true' if {0} else 'false')",
}


def _inlinable(template: str) -> bool:
    unquoted = re.sub(r"'[^']*'", "''", template)
    return all(m.group(1) in _ALLOWED for m in _IDENT.finditer(unquoted))


_ALLOWED = {*TEMPLATE_BUILTINS, "_str", "_itext", "_concat", "_r", "if", "else"}


def _copy_of(code: str, t: Type | None) -> str:
    """Read a const: copied unless its type is immutable all the way down."""
    if t in _IMMUTABLE or t is None or t is ERROR or isinstance(t, HostType):
        return code
    if isinstance(t, ListType) and t.elem in _IMMUTABLE:
        return f"(_r if len(_r := {code}[:]) < {LIST_PER_STEP} else _concat(_r))"
    if isinstance(t, MapType) and t.value in _IMMUTABLE:
        return f"(_r if len(_r := {code}.copy()) < {LIST_PER_STEP} else _concat(_r))"
    return f"_copy({code})"


def _struct_decl(names: Names, module: str, name: str) -> n.StructDecl | None:
    decls = names.structs.get(module)
    if decls is None:
        mod = names.program.modules.get(module)
        items = mod.items if mod else ()
        decls = names.structs[module] = {i.name: i for i in items if isinstance(i, n.StructDecl)}
    return decls.get(name)


class FnEmitter(ExprEmitter):
    """One Hale fn as one Python `def`."""

    def __init__(self, mod: ModuleEmitter, fn: n.FnDecl):
        super().__init__(mod, {})
        self.fn = fn
        self.pyname = mod.names.item("F", mod.path, fn.name)
        self.scopes: list[list[str]] = [[p.name for p in fn.params]]
        self.appends = {id(a): f"_a{i}" for i, a in enumerate(_append_sites(fn.body), 1)}
        mod.labels[self.pyname] = fn.name

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
        self.line(mod.mark("_next(_C)", fn.name_span, "step"), fn.name_span)
        for st in _append_sites(fn.body):  # each site's count, before anything runs
            site = self.appends[id(st)]
            if isinstance(st.value.right, n.StrLit):
                self.line(f"{site} = _k{site[2:]} = 1", fn.name_span)
            else:
                self.line(f"{site} = 0", fn.name_span)
        if mod.hooked:
            self.line(
                mod.mark(f"_hk.call({self.site(fn.name_span)}, _locals())", fn.name_span, "hook"),
                fn.name_span,
            )
        self.block(fn.body.stmts, new_scope=False)
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
        getattr(self, "_s_" + s.__class__.__name__)(s)

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
        """After a list or map may have grown: the meter holds it at every
        GROWTH elements (one `&` on the way)."""
        check = self.mod.mark(f"_grew({container})", at, "meter")
        self.line(f"if not len({container}) & {GROWTH - 1}: {check}", span)

    def _s_Return(self, s: n.Return) -> None:
        value = self.expr(s.value) if s.value is not None else "None"
        if self.mod.hooked:
            value = self.mod.mark(f"_hk.ret({self.site(s.span)}, {value})", s.span, "hook")
        self.line(f"return {value}", s.span)

    def _s_Break(self, s: n.Break) -> None:
        self.line("break", s.span)

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
        self.block(s.body.stmts)
        self.mod.indent -= 1
        self.line("else:", head)
        self.line("    " + self.mod.mark("_over()", head, "step"), head)

    def _s_For(self, s: n.For) -> None:
        head = _header(s.span, s.iterable.span)
        it = s.iterable
        if isinstance(it, n.Call) and it.func.ref.kind == "native" and it.func.ref.name == "range":
            source = f"_range({', '.join(self.expr(a) for a in it.args)})"
        elif isinstance(it.ty, MapType):
            source = f"_tuple({self.expr(it)})"
        else:
            source = self.expr(it)
        self.line(f"for _, v_{s.name} in _zip(_C, {source}):", head)
        self.scopes.append([s.name])
        self.mod.indent += 1
        self.hook(head)
        self.block(s.body.stmts)
        self.mod.indent -= 1
        self.scopes.pop()
        self.line("else:", head)
        self.line("    if not _lh(_C): " + self.mod.mark("_over()", head, "step"), head)

    def _s_Assign(self, s: n.Assign) -> None:
        target, value = s.target, s.value
        compound = isinstance(value, n.Binary) and value.left is target
        site = self.appends.get(id(s))
        if site is not None:  # `s = s + x`: CPython appends in place; charge in batches
            v = f"v_{target.name}"
            self.line(f"{v} = {v} + {self.expr(value.right)}", s.span)
            if isinstance(value.right, n.StrLit):  # a known length: count the appends
                k = "_k" + site[2:]
                call = f"_appended_literal({v}, {k}, {len(value.right.value)})"
                charge = self.mod.mark(call, value.span, "meter")
                self.line(f"{site} -= 1", s.span)
                self.line(f"if not {site}: {site} = {k} = {charge}", s.span)
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


def _append_sites(body: n.Block) -> list[n.Assign]:
    """Every `s = s + x` (or `s += x`) on a String local, in the body."""
    found, blocks = [], [body]
    while blocks:
        for st in blocks.pop().stmts:
            if isinstance(st, n.If):
                blocks += [b for _, b in st.branches] + ([st.orelse] if st.orelse else [])
            elif isinstance(st, n.While | n.For):
                blocks.append(st.body)
            elif _is_append(st):
                found.append(st)
    return found


def _is_append(st: n.Stmt) -> bool:
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
