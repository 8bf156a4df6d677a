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
from dataclasses import dataclass, field

from . import nodes as n
from .diagnostics import Span
from .emit_expr import _CLOSE, _MARK, _MID, _OPEN, CompileError, ExprEmitter, _free_names
from .emit_fn import FnEmitter
from .gc_pause import collector_paused
from .limits import headroom
from .loader import LoadedProgram
from .types import ERROR, VOID, Type

__all__ = ["CompileError", "compile_program", "hooked_variants"]


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
    # the emitter, and CPython's compiler, recurse on nesting; what they make lives on
    with headroom(), collector_paused():
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
    with headroom():
        return {
            path: ModuleEmitter(program.modules[path], Names(program, path, index), True).emit()
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
        self.helpers: list[tuple[str, list[str], list[str], Span]] = []

    def emit(self) -> Emitted:
        for item in self.module.items:
            if isinstance(item, n.FnDecl):
                FnEmitter(self, item).emit()
            elif isinstance(item, n.StructDecl):
                self._struct_init(item)
            elif isinstance(item, n.Const):
                self._const_init(item)
            self._flush_helpers()
        linemap = marshal.dumps(
            {"lines": self.stmt_spans, "ranges": self.ranges, "marks": self.marks}
        )
        source = "\n".join(self.lines) + "\n"
        return Emitted(source, linemap, self.labels)

    # --- helpers: chains too long for one Python expression ----------------

    def helper(self, body: list[str], span: Span) -> str:
        """A call of a new module-level fn running `body` (statements whose
        free Hale variables become its parameters); emitted after the item."""
        name = f"X{self.names.index[self.path]}_{len(self.labels)}"
        self.labels[name] = ""  # not a Hale frame: traces skip it
        params = _free_names(body)
        self.helpers.append((name, params, body, span))
        return f"{name}({', '.join(params)})"

    def _flush_helpers(self) -> None:
        while self.helpers:
            name, params, body, span = self.helpers.pop(0)
            indent, self.indent = self.indent, 0
            self.line(f"def {name}({', '.join(params)}):", span)
            self.indent = 1
            for text in body:
                self.line(text, span)
            self.indent = indent

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
        # split: the text between marks at even indices; at odd ones, a
        # mark's number where it opens, None where one closes
        parts = _MARK.split(text)
        col, stack = offset + len(parts[0]), []
        found = self.ranges.setdefault(lineno, [])
        for i in range(1, len(parts), 2):
            mark = parts[i]
            if mark is not None:
                stack.append((int(mark), col))
            else:
                number, start = stack.pop()
                found.append([start, col, number])
            col += len(parts[i + 1])
        return "".join(parts[0::2])

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
