"""Hale expressions as Python expression text, with marks and metering.

`ExprEmitter` turns one checked expression into one Python expression (a
string), recording marks through its module emitter (see compiler.py).
Operators map to Python's, with three changes that keep semantics Hale's:
comparisons never chain, Int `*`, `/` and `%` go through the meter when
their work is more than linear (`_mul_op`), and String concatenation is
checked for size where it produces a big value. A chain `a + b + …` is
walked with a loop; longer than limits.CHAIN_INLINE it becomes a helper fn
that accumulates it statement by statement (Python's own compiler recurses
on a long chain), called where the chain stands, so evaluation order is the
chain's own.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Any, Protocol

from hale_lang.stdlib.prelude import natives_named

from . import nodes as n
from .diagnostics import Span
from .limits import CHAIN_GROUP, CHAIN_INLINE
from .meter import LIST_PER_STEP, SMALL_INT, STR_PER_STEP
from .runtime import TEMPLATE_BUILTINS, native_pyname
from .types import BOOL, ERROR, INT, JSON, STRING, HostType, ListType, MapType, Type


class Names(Protocol):
    """What the emitters read of compiler.py's `Names`."""

    program: Any  # the LoadedProgram
    index: dict[str, int]
    structs: dict[str, dict[str, n.StructDecl]]

    def item(self, prefix: str, module: str, name: str) -> str: ...

    def host(self, module: str, owner: str, name: str) -> str: ...


class ModuleEmitter(Protocol):
    """What the expression and fn emitters read and write of compiler.py's
    `ModuleEmitter`: declared here, so the compiler imports the emitters and
    never the reverse."""

    names: Names
    path: str
    hooked: bool
    indent: int
    lines: list[str]
    labels: dict[str, str]

    def mark(self, code: str, span: Span, tag: str) -> str: ...

    def helper(self, body: list[str], span: Span) -> str: ...

    def line(self, text: str, span: Span | None) -> None: ...


_OPEN, _MID, _CLOSE = "\x01", "\x02", "\x03"
_MARK = re.compile("\x01(\\d+)\x02|\x03")
_IDENT = re.compile(r"(?<![.\w])([A-Za-z_]\w*)")
_SIMPLE = re.compile(r"^(v_\w+|_acc|-?\d+|True|False|None)$")
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
_GROUP = CHAIN_GROUP
_PYOP = {"+": "+", "-": "-", "&&": "and", "||": "or"}
_SMALL = str(SMALL_INT)
_NEG_SMALL = f"-{SMALL_INT}"


class ExprEmitter:
    """Python expression text for Hale expressions (with marks)."""

    def __init__(self, mod: ModuleEmitter, overrides: dict[int, str]):
        self.mod, self.names = mod, mod.names
        self.overrides = overrides  # id(expr) -> code already computed for it
        self.temps = 0
        self.small: set[str] = set()  # code of locals known to hold Ints within ±SMALL_INT

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def expr(self, e: n.Expr) -> str:
        code = self.overrides.get(id(e))
        if code is not None:
            return code
        method = _EXPR.get(e.__class__)
        if method is None:  # a class first seen: `_<Class>` by name, once
            method = _EXPR[e.__class__] = getattr(ExprEmitter, "_" + e.__class__.__name__)
        return method(self, e)

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
            code = f"{self.callee(ref)}({', '.join(args)})"
            return self.mod.mark(code, e.span, "call")
        if ref.kind == "hostfn":
            code = f"{self.names.host(ref.module, '', ref.name)}({', '.join(args)})"
            return self.mod.mark(code, e.span, f"host:fn `{ref.name}`")
        return self.native(ref, args, types, e.span)

    def callee(self, ref: n.Ref) -> str:
        """The Python name a call of the Hale fn `ref` calls."""
        return self.names.item("F", ref.module, ref.name)

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
        template = _specialised(nat.name, types, args, self.small) or nat.inline
        if template is not None and _inlinable(template) and _in_order(template, args):
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
        if len(spine) > CHAIN_INLINE:
            return self._chain_helper(e, group, left, spine)
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

    def _chain_helper(self, e: n.Binary, group: str, left: n.Expr, spine: list) -> str:
        """A chain longer than CHAIN_INLINE: a helper accumulates it statement
        by statement (Python's compiler recurses on a long chain), called where
        the chain stands, so nothing is evaluated out of its order."""
        body = [f"_acc = {self.expr(left)}"]
        if group in ("and", "or"):
            stop = "if not _acc: return _acc" if group == "and" else "if _acc: return _acc"
            for b in spine:
                body += [stop, f"_acc = {self.expr(b.right)}"]
        elif group == "mul":
            body += [f"_acc = {self._mul_op(b, '_acc', self.expr(b.right))}" for b in spine]
        else:
            for i in range(0, len(spine), CHAIN_INLINE):
                part = spine[i : i + CHAIN_INLINE]
                body.append(
                    "_acc = _acc" + "".join(f" {_PYOP[b.op]} {self.expr(b.right)}" for b in part)
                )
            if e.ty == STRING:
                check = f"(_r if len(_r := _acc) < {STR_PER_STEP} else _concat(_r, {len(spine)}))"
                body.append(f"_acc = {self.mod.mark(check, e.span, 'meter')}")
        body.append("return _acc")
        return self.mod.helper(body, e.span)

    def _compare(self, e: n.Binary) -> str:
        left, right = self.expr(e.left), self.expr(e.right)
        if e.left.ty == JSON:
            code = f"_jeq({left}, {right})"
            return code if e.op == "==" else f"(not {code})"
        return f"({left} {e.op} {right})"

    def _mul_op(self, e: n.Binary, left: str, right: str) -> str:
        """`*`, `/` or `%` on Ints: inline where the work is linear (a small
        literal operand, or see `_guarded`), else through the meter."""
        op, slow = {"*": ("*", "_mul"), "/": ("//", "_floordiv"), "%": ("%", "_mod")}[e.op]
        if _small_literal(right) or op == "*" and _small_literal(left):
            code = f"({left} {op} {right})"  # linear in the other operand: one step
        else:
            code = self._guarded(op, slow, left, right)
        tag = {"*": "meter", "/": "div/", "%": "div%"}[e.op]
        return self.mod.mark(code, e.span, tag)

    def _guarded(self, op: str, slow: str, left: str, right: str) -> str:
        """`left op right` inline while the work is linear: for `*`, one
        operand below 2**62; for `/` and `%`, a divisor below 2**62. Else the
        meter's `slow` charges by the digit counts."""
        first_l, l_val = self.bind(left)
        first_r, r_val = self.bind(right)
        small_r = f"{_NEG_SMALL} < {first_r} < {_SMALL}"
        if op != "*":
            cond = small_r if first_l == l_val else f"{first_l} is not None and {small_r}"
        elif first_l == l_val and first_r == r_val:
            cond = f"{_NEG_SMALL} < {l_val} < {_SMALL} or {small_r}"
        else:  # both bound, whichever is small: `|` evaluates both sides
            cond = f"({_NEG_SMALL} < {first_l} < {_SMALL}) | ({small_r})"
        return f"({l_val} {op} {r_val} if {cond} else {slow}({l_val}, {r_val}))"

    def bind(self, code: str) -> tuple[str, str]:
        """(the code that evaluates `code` once, the code that reads it after)."""
        if _SIMPLE.match(code):
            return code, code
        t = self.temp()
        return f"({t} := {code})", t

    def _Unary(self, e: n.Unary) -> str:
        operand = self.expr(e.operand)
        return f"(not {operand})" if e.op == "!" else f"(-{operand})"


_EXPR: dict[type, object] = {}  # expression class -> its ExprEmitter method


class CompileError(Exception):
    """An annotation the checker should have filled is missing (a bug)."""


_HELPER_FREE = re.compile(r"^(v_\w+|_t\d+)$")


def _free_names(body: list[str]) -> list[str]:
    """The Hale variables and temporaries `body` reads but does not bind,
    in order of first use (string literals are skipped by tokenizing)."""
    used: dict[str, None] = {}
    bound: set[str] = set()
    for text in body:
        toks = list(tokenize.generate_tokens(io.StringIO(_MARK.sub("", text)).readline))
        for i, tok in enumerate(toks):
            if tok.type != tokenize.NAME or not _HELPER_FREE.match(tok.string):
                continue
            nxt = toks[i + 1].string if i + 1 < len(toks) else ""
            if nxt == ":=":
                bound.add(tok.string)
            elif tok.string not in bound:
                used.setdefault(tok.string, None)
    return list(used)


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


def _specialised(name: str, types: list, args: list[str], small: set[str]) -> str | None:
    """A faster inline form the static types allow (same result as the native)."""
    if name == "to_string" and types[0] in _TEXT_FORMS:
        if types[0] == INT and (args[0] in small or _small_offset(args[0], small)):
            return "_str({0})"
        return _TEXT_FORMS[types[0]]
    return None


_OFFSET = re.compile(r"^\((v_\w+) [+-] (\d{1,12})\)$")


def _small_offset(code: str, small: set[str]) -> bool:
    """`i + k` or `i - k`, i a local of small Ints (below 2**40 plus the
    iterations run, see emit_fn._counts_small) and k a literal below 10**12:
    small too (`to_string(i + 1)` numbering from 1)."""
    m = _OFFSET.match(code)
    return m is not None and m.group(1) in small


_TEXT_FORMS = {
    INT: f"(_str(_r) if {-SMALL_INT} < (_r := {{0}}) < {SMALL_INT} else _itext(_r))",
    STRING: "{0}",
    BOOL: "('true' if {0} else 'false')",
}


def _in_order(template: str, args: list[str]) -> bool:
    """May `template` evaluate its operands in its own order? Yes when it
    reads them left to right, or when at most one of them does anything
    (a local or a literal is read the same whenever it is read)."""
    order = [int(i) for i in re.findall(r"\{(\d+)\}", template)]
    if order == sorted(order):
        return True
    return sum(1 for a in args if not _SIMPLE.match(a)) <= 1


def _inlinable(template: str) -> bool:
    unquoted = re.sub(r"'[^']*'", "''", template)
    return all(m.group(1) in _ALLOWED for m in _IDENT.finditer(unquoted))


_ALLOWED = {*TEMPLATE_BUILTINS, "_str", "_itext", "_concat", "_r", "if", "else", "in"}


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
