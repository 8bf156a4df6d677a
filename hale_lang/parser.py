"""Parsing: source text -> `nodes.Module`, or syntax diagnostics.

Lark builds an LALR(1) parser from `grammar/hale.lark` (cached on disk by
Lark) and runs our transformer inline, so no parse tree is ever built. The
grammar keeps every token, and each node's span runs from its first token to
its last, which is cheaper than Lark's propagate_positions.

A syntax error is reported with the token it stopped at, what was expected
in plain words, and, for the common slips, a hint; then the parser recovers
(`recovery.py`) and goes on, so one parse reports every syntax error of a
file. An item an error cut short or ran through becomes a `BrokenItem`.
Parsed modules are cached by content hash (see `cache.py`), so an unchanged
file is never parsed twice.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from lark import Token, Transformer

from . import nodes as n
from .diagnostics import Diagnostic, HaleError, Span
from .lalr import END, Driver
from .lexer import HaleLexer
from .numbers import parse_decimal
from .resources import grammar_file

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(u\{[0-9A-Fa-f]{1,6}\}|.)")


class _BadEscape(Exception):
    def __init__(self, offset: int, text: str):
        self.offset, self.text = offset, text


def _decode_string(raw: str) -> str:
    """Decode the escapes of a string literal (without its quotes)."""

    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc in _ESCAPES:
            return _ESCAPES[esc]
        if esc.startswith("u{"):
            code = int(esc[2:-1], 16)
            if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
                return chr(code)
        raise _BadEscape(m.start(), m.group(0))

    return _ESCAPE_RE.sub(one, raw) if "\\" in raw else raw


# binary operators from loosest to tightest; all associate to the left
_PRECEDENCE = {
    op: level
    for level, ops in enumerate(
        (("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%"))
    )
    for op in ops
}


def _climb(operands: list[n.Expr], operators: list[str], path: str) -> n.Expr:
    """Group a flat `a op b op c …` by precedence, left-associatively
    (shunting-yard: reduce while the stacked operator binds at least as tight)."""
    out: list[n.Expr] = [operands[0]]
    stack: list[str] = []
    for op, operand in zip(operators, operands[1:], strict=True):
        level = _PRECEDENCE[op]
        while stack and _PRECEDENCE[stack[-1]] >= level:
            _reduce(out, stack.pop(), path)
        stack.append(op)
        out.append(operand)
    while stack:
        _reduce(out, stack.pop(), path)
    return out[0]


def _reduce(out: list[n.Expr], op: str, path: str) -> None:
    """The two operands on top of `out` become one Binary."""
    right, left = out.pop(), out.pop()
    a, b = left.span, right.span
    span = Span(path, a.line, a.col, b.end_line, b.end_col)
    out.append(n.Binary(span, op=op, left=left, right=right))


def _positioned(children) -> list:
    return [c for c in children if c is not None and (hasattr(c, "span") or hasattr(c, "line"))]


def _tok_span(path: str, tok) -> Span:
    return Span(path, tok.line, tok.column, tok.end_line, tok.end_column)


def _is_tok(x, value: str | None = None) -> bool:
    return hasattr(x, "type") and (value is None or x == value)


def _names(children) -> list:
    return [c for c in children if _is_tok(c) and c.type == "NAME"]


class _QualifiedName:
    """`a::b::c` as parsed, before it becomes a Name, Path or TypeRef."""

    __slots__ = ("parts", "span")

    def __init__(self, parts: tuple[str, ...], span: Span):
        self.parts, self.span = parts, span


class _Builder(Transformer):
    """The inline transformer: one method per grammar rule (or alias)."""

    def __init__(self, path: str):
        super().__init__()
        self.file = path
        self.errors: list[Diagnostic] = []  # literals that do not read: bad escapes, numbers

    def _span(self, children) -> Span:
        first, last = children[0], children[-1]
        if first is None or last is None:
            pos = _positioned(children)
            first, last = pos[0], pos[-1]
        a = first.span if type(first) is not Token else first
        b = last.span if type(last) is not Token else last
        if type(a) is Span:
            line, col = a.line, a.col
        else:
            line, col = a.line, a.column
        if type(b) is Span:
            return Span(self.file, line, col, b.end_line, b.end_col)
        return Span(self.file, line, col, b.end_line, b.end_column)

    # --- items -------------------------------------------------------------

    def start(self, c):
        return [x for x in c if x is not None]

    def import_item(self, c):
        lit, alias = c[1], c[3]
        return n.Import(str(alias), self._span(c), _tok_span(self.file, alias), path=lit[1:-1])

    def const_item(self, c):
        name = c[1]
        ty = next((x for x in c if isinstance(x, n.TypeRef)), None)
        return n.Const(str(name), self._span(c), _tok_span(self.file, name), ty, c[-2])

    def struct_item(self, c):
        name = c[1]
        fields = [x for x in c if isinstance(x, n.StructField)]
        return n.StructDecl(str(name), self._span(c), _tok_span(self.file, name), fields)

    def field_decl(self, c):
        return n.StructField(str(c[0]), c[2], self._span(c))

    def _signature(self, c):
        params = next((x for x in c if isinstance(x, list)), [])
        ret = next((x for x in c if isinstance(x, n.TypeRef)), None)
        return params, ret

    def fn_item(self, c):
        name = c[1]
        params, ret = self._signature(c[:-1])
        return n.FnDecl(str(name), self._span(c), _tok_span(self.file, name), params, ret, c[-1])

    def host_method(self, c):
        name = c[1]
        params, ret = self._signature(c)
        return n.HostFn(str(name), self._span(c), _tok_span(self.file, name), params, ret)

    def host_fn_item(self, c):
        fn = self.host_method(c[1:])
        fn.span = self._span(c)
        return fn

    def host_type_item(self, c):
        name = c[2]
        methods = [x for x in c if isinstance(x, n.HostFn)]
        return n.HostTypeDecl(str(name), self._span(c), _tok_span(self.file, name), methods)

    def params(self, c):
        return [x for x in c if isinstance(x, n.Param)]

    def param(self, c):
        return n.Param(str(c[0]), c[2], self._span(c))

    def type(self, c):
        parts, span = self._path(c[0])
        if c[1] is None:  # no type arguments: the path's span is the type's
            return n.TypeRef(parts, [], span)
        args = [x for x in c[1:] if isinstance(x, n.TypeRef)]
        return n.TypeRef(parts, args, self._span(c))

    def path(self, c):
        """`a::b`; a path of one name reduces to its NAME token alone."""
        return _QualifiedName(tuple(str(x) for x in _names(c)), self._span(c))

    def _path(self, q) -> tuple[tuple[str, ...], Span]:
        """A reduced `path` (a NAME token, or a _QualifiedName): its parts and span."""
        if type(q) is Token:
            return (str(q),), _tok_span(self.file, q)
        return q.parts, q.span

    # --- statements --------------------------------------------------------

    def block(self, c):
        return n.Block([x for x in c[1:-1] if x is not None], self._span(c))

    def let_stmt(self, c):
        # "let" NAME [":" type] EQ expr ";": the type, or its placeholder, is c[3]
        name, first, last = c[1], c[0], c[-1]
        span = Span(self.file, first.line, first.column, last.end_line, last.end_column)
        return n.Let(span, str(name), c[3], c[-2], _tok_span(self.file, name))

    def assign_stmt(self, c):
        target, op, value = c[0], c[1], c[2]
        span = self._span(c)
        if op != "=":
            value = n.Binary(span, op=str(op)[:-1], left=target, right=value)
        return n.Assign(span, target, value)

    def if_stmt(self, c):
        cond, body = c[1], c[2]
        branches, orelse = [(cond, body)], None
        rest = c[4] if len(c) > 4 else None
        if isinstance(rest, n.If):
            branches += rest.branches
            orelse = rest.orelse
        elif isinstance(rest, n.Block):
            orelse = rest
        return n.If(self._span(c), branches, orelse)

    def while_stmt(self, c):
        return n.While(self._span(c), c[1], c[2])

    def for_stmt(self, c):
        name = c[1]
        return n.For(self._span(c), str(name), c[3], c[4], _tok_span(self.file, name))

    def break_stmt(self, c):
        return n.Break(self._span(c))

    def continue_stmt(self, c):
        return n.Continue(self._span(c))

    def return_stmt(self, c):
        value = c[1] if isinstance(c[1], n.Expr) else None
        return n.Return(self._span(c), value)

    def expr_stmt(self, c):
        return n.ExprStmt(self._span(c), c[0])

    # --- expressions -------------------------------------------------------

    def ops(self, c):
        if len(c) == 3:  # one operator, most chains: nothing to group
            left, right = c[0], c[2]
            span = Span(
                self.file, left.span.line, left.span.col, right.span.end_line, right.span.end_col
            )
            return n.Binary(span, op=str(c[1]), left=left, right=right)
        operands, operators = c[0::2], [str(t) for t in c[1::2]]
        return _climb(operands, operators, self.file)

    def unary(self, c):
        return n.Unary(self._span(c), op=str(c[0]), operand=c[1])

    def method_call(self, c):
        name = c[2]
        args = c[4] if isinstance(c[4], list) else []
        span = self._span(c)
        return n.MethodCall(span, c[0], str(name), args, _tok_span(self.file, name))

    def field_access(self, c):
        name = c[2]
        return n.FieldAccess(self._span(c), c[0], str(name), _tok_span(self.file, name))

    def index(self, c):
        return n.Index(self._span(c), c[0], c[2])

    def call(self, c):
        args = c[2] if isinstance(c[2], list) else []
        return n.Call(self._span(c), c[0], args)

    def args(self, c):
        return [x for x in c if isinstance(x, n.Expr)]

    def int_lit(self, c):
        t = c[0]
        span = Span(self.file, t.line, t.column, t.end_line, t.end_column)
        if len(t) < 19 and "_" not in t:  # most literals: int() reads them at once
            return n.IntLit(span, int(t))
        text = str(t)
        if "_" in text and ("__" in text or text.endswith("_")):
            self.errors.append(
                Diagnostic(
                    "E0004",
                    f"malformed number `{text}`",
                    _tok_span(self.file, c[0]),
                    help="a `_` goes between two digits, as in `1_000`",
                )
            )
        return n.IntLit(span, parse_decimal(text.replace("_", "")))

    def str_lit(self, c):
        tok = c[0]
        try:
            value = _decode_string(str(tok)[1:-1])
        except _BadEscape as e:
            col = tok.column + 1 + e.offset
            span = Span(self.file, tok.line, col, tok.line, col + len(e.text))
            self.errors.append(
                Diagnostic(
                    "E0003",
                    f"unknown escape `{e.text}` in string",
                    span,
                    help='escapes are \\n \\t \\r \\\\ \\" \\0 and \\u{…}',
                )
            )
            value = ""
        return n.StrLit(self._span(c), value)

    def true_lit(self, c):
        return n.BoolLit(self._span(c), True)

    def false_lit(self, c):
        return n.BoolLit(self._span(c), False)

    def list_lit(self, c):
        return n.ListLit(self._span(c), [x for x in c if isinstance(x, n.Expr)])

    def name(self, c):
        q = c[0]
        if type(q) is Token:
            return n.Name(_tok_span(self.file, q), str(q))
        return n.Path(q.span, q.parts)

    def paren(self, c):
        return c[1]

    def struct_lit(self, c):
        fields = [x for x in c if isinstance(x, n.FieldInit)]
        parts, _ = self._path(c[0])
        return n.StructLit(self._span(c), parts, fields)

    def field_init(self, c):
        return n.FieldInit(str(c[0]), c[2], self._span(c))

    def map_lit(self, c):
        return n.MapLit(self._span(c), [x for x in c if isinstance(x, tuple)])

    def map_entry(self, c):
        return (c[0], c[2])


_BUILDER = _Builder("")
_COMMENTS: list[n.Comment] = []
_LOCK = threading.Lock()


def _keep_comment(tok):
    _COMMENTS.append(n.Comment(str(tok), _tok_span(_BUILDER.file, tok)))
    return tok


@lru_cache(maxsize=1)
def _lark():
    from lark import Lark

    from .syntax_errors import learn_terminals

    HaleLexer.on_comment = staticmethod(_keep_comment)
    lark = Lark(
        grammar_file().read_text(),
        parser="lalr",
        lexer=HaleLexer,
        keep_all_tokens=True,
        maybe_placeholders=True,
        transformer=_BUILDER,
    )
    learn_terminals(lark.terminals)  # the messages name `->` and `::` as written
    return lark


@lru_cache(maxsize=1)
def _driver() -> tuple[Driver, HaleLexer]:
    lark = _lark()
    return Driver(lark), lark.parser.lexer.lexer


def parse(text: str, path: str) -> n.Module:
    """Parse one file. Raises HaleError carrying every syntax diagnostic."""
    module = parse_module(text, path)
    if module.errors:
        raise HaleError(module.errors)
    return module


def parse_module(text: str, path: str) -> n.Module:
    """Parse one file, recovering from syntax errors: the module holds every
    item, a `BrokenItem` for each one an error touched, and the errors."""
    from .recovery import Recovery
    from .syntax_errors import token_diagnostic, too_many_errors

    driver, lexer = _driver()
    diags: list[Diagnostic] = []

    def report(tok, accepts, values) -> None:
        diags.append(token_diagnostic(tok, accepts, values, text, path))

    def give_up(tok) -> None:
        diags.append(too_many_errors(tok, path))

    def count_tokens(start: int, end: int, limit: int) -> int:
        return lexer.count(text, start, end, limit)

    recovery = Recovery(driver, report, give_up, count_tokens, path)
    with _LOCK:
        _BUILDER.file = path
        _BUILDER.errors = []
        _COMMENTS.clear()
        items = driver.parse(lexer.lex(text, recovering=True, end=END), recovery, ended=True)
        comments = list(_COMMENTS)
        diags += _BUILDER.errors
    if diags:
        for d in _BUILDER.errors:
            recovery.add_error(d.span.line, d.span.col)
        items = _broken(items, recovery)
        diags.sort(key=lambda d: (d.span.line, d.span.col))
    return n.Module(path, items, comments, diags)


def _broken(items: list[n.Item], recovery) -> list[n.Item]:
    """Items an error falls inside become BrokenItems; add the items that
    recovery cut short, in the order of the file."""
    out = list(recovery.lost)
    for item in items:
        s = item.span
        if any((s.line, s.col) <= at < (s.end_line, s.end_col) for at in recovery.errors):
            item = n.BrokenItem(item.name, s, item.name_span, _KIND[type(item)])
        out.append(item)
    out.sort(key=lambda i: (i.span.line, i.span.col))
    return out


_KIND = {
    n.Import: "import",
    n.Const: "const",
    n.StructDecl: "struct",
    n.FnDecl: "fn",
    n.HostFn: "hostfn",
    n.HostTypeDecl: "hosttype",
}
