"""The Hale formatter: one canonical layout, printed from the syntax tree.

Algorithm. The module is parsed; the printer walks the tree in source order
and writes each item and statement on fresh lines, reading expressions back
with the fewest parentheses their precedence needs. Comments are not in the
tree, so they are merged in by position: a cursor runs over the module's
comments (sorted by position) and, before each node is printed, every comment
that starts before the node is written on its own line at the current
indentation. A comment on the line where a node ends (and before the next
node starts) is appended to that node's last line. Comments inside a
construct that prints on one line (a multi-line call, a struct literal) are
hoisted above the line they belong to. Because the cursor only moves
forward and the tail is flushed at the end, every comment is printed exactly
once. A blank line is kept (one at most) wherever the source had one before
a line's first node; none follows an opening brace.

Top-level items are printed into separate chunks, then assembled: imports
first in their own order, then the other items in theirs, one blank line
between items. Comments before the first item that a blank line separates
from it stay at the top of the file.

Long lines are not wrapped: every expression prints on one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import nodes as n
from .numbers import int_text, parse_decimal
from .parser import parse

INDENT = "    "

# binding power of each binary operator; higher binds tighter
_BINARY = {
    "||": 1,
    "&&": 2,
    **dict.fromkeys(("==", "!=", "<", "<=", ">", ">="), 3),
    **dict.fromkeys(("+", "-"), 4),
    **dict.fromkeys(("*", "/", "%"), 5),
}
_UNARY, _POSTFIX, _ATOM = 6, 7, 8
_COND = (n.StructLit, n.MapLit)  # literals a condition must parenthesize
_STMT = (n.MapLit,)  # literals the start of a statement must parenthesize

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def format_source(text: str, path: str) -> str:
    """The canonical layout of `text`. Raises HaleError on a syntax error."""
    module = parse(text, path)
    return format_module(module, text)


def format_module(module: n.Module, text: str) -> str:
    """Print a parsed module; `text` is the source it was parsed from."""
    return _Printer(module, text).module()


def quote(value: str) -> str:
    """A string literal for `value`, escaped canonically."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif not ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _start(node) -> tuple[int, int]:
    return node.span.line, node.span.col


def _end(node) -> tuple[int, int]:
    return node.span.end_line, node.span.end_col


@dataclass
class _Chunk:
    """The printed lines of one top-level item and the comments before it."""

    lines: list[str] = field(default_factory=list)
    blank_before: bool = False
    is_import: bool = False


class _Printer:
    def __init__(self, module: n.Module, text: str):
        self.module_node = module
        self.src = text.split("\n")
        self.comments = sorted(module.comments, key=_start)
        self.next = 0  # cursor into self.comments
        self.out: list[str] = []
        self.depth = 0
        self.allow_blank = False
        self.last_line = 0  # the last source line printed so far

    # --- comments and lines -----------------------------------------------

    def _peek(self) -> n.Comment | None:
        return self.comments[self.next] if self.next < len(self.comments) else None

    def _blank_at(self, line: int) -> bool:
        return 1 <= line <= len(self.src) and not self.src[line - 1].strip()

    def line(self, text: str, src_line: int, end_line: int | None = None) -> None:
        """Print one line for the source that starts on `src_line`, keeping
        one blank line before it if the source had one there."""
        if self.allow_blank and src_line > self.last_line and self._blank_at(src_line - 1):
            self.out.append("")
        self.out.append(INDENT * self.depth + text)
        self.allow_blank = True
        self.last_line = max(self.last_line, src_line, end_line or src_line)

    def comments_before(self, pos: tuple[int, int]) -> None:
        """Print every pending comment that starts before `pos`, one a line."""
        while (c := self._peek()) is not None and _start(c) < pos:
            self.next += 1
            self.line(c.text.rstrip(), c.span.line)

    def trailing(self, line: int, before: tuple[int, int] | None = None) -> None:
        """Append the pending comment on source line `line` (if it starts
        before `before`, the next node) to the last printed line."""
        c = self._peek()
        if c is None or c.span.line != line or (before is not None and _start(c) >= before):
            return
        self.next += 1
        self.out[-1] += " " + c.text.rstrip()

    def has_comment_before(self, pos: tuple[int, int]) -> bool:
        c = self._peek()
        return c is not None and _start(c) < pos

    def opener(self, header: str, start_line: int, brace_line: int) -> None:
        """Print a line ending in `{`; no blank line may follow it."""
        self.line(header, start_line, brace_line)
        self.allow_blank = False

    def closer(self, text: str, src_line: int) -> None:
        """Print a line starting with `}`; no blank line comes before it."""
        self.allow_blank = False
        self.line(text, src_line)

    def brace_pos(self, after: n.Span) -> tuple[int, int]:
        """Where the `{` after `after` is (skipping whitespace and comments)."""
        line, col = after.end_line, after.end_col
        while line <= len(self.src):
            text = self.src[line - 1]
            i = col - 1
            while i < len(text) and text[i] in " \t\r":
                i += 1
            if i < len(text) and text[i] == "{":
                return line, i + 1
            if i < len(text) and not text.startswith("//", i):
                break
            line, col = line + 1, 1
        return after.end_line, after.end_col

    # --- the module ---------------------------------------------------------

    def module(self) -> str:
        items = self.module_node.items
        header = self._header(items)
        chunks = [self._item_chunk(item, i, items) for i, item in enumerate(items)]
        tail = self._chunk(lambda: self.comments_before((len(self.src) + 1, 0)))
        ordered = [c for c in chunks if c.is_import] + [c for c in chunks if not c.is_import]
        lines = list(header)
        prev: _Chunk | None = None
        for chunk in ordered:
            if lines and (prev is None or not prev.is_import or not chunk.is_import):
                lines.append("")
            elif lines and chunk.blank_before:
                lines.append("")
            lines += chunk.lines
            prev = chunk
        if tail.lines:
            if lines and tail.blank_before:
                lines.append("")
            lines += tail.lines
        return "\n".join(lines) + "\n" if lines else ""

    def _header(self, items: list[n.Item]) -> list[str]:
        """The comments above the first item that a blank line cuts off from it."""
        if not items:
            return []
        first = items[0].span.line
        blank = next((ln for ln in range(first - 1, 0, -1) if self._blank_at(ln)), 0)
        chunk = self._chunk(lambda: self.comments_before((blank, 0)))
        return chunk.lines

    def _chunk(self, emit) -> _Chunk:
        saved, self.out = self.out, []
        self.allow_blank = False
        c = self._peek()
        first_line = c.span.line if c is not None else 0
        emit()
        chunk = _Chunk(self.out, blank_before=self._blank_at(first_line - 1))
        self.out = saved
        return chunk

    def _item_chunk(self, item: n.Item, i: int, items: list[n.Item]) -> _Chunk:
        nxt = _start(items[i + 1]) if i + 1 < len(items) else None
        c = self._peek()
        first = c.span.line if c is not None and _start(c) < _start(item) else item.span.line

        def emit() -> None:
            self.comments_before(_start(item))
            self.item(item)
            self.trailing(item.span.end_line, nxt)

        chunk = self._chunk(emit)
        chunk.blank_before = self._blank_at(first - 1)
        chunk.is_import = isinstance(item, n.Import)
        return chunk

    # --- items ----------------------------------------------------------------

    def item(self, item: n.Item) -> None:
        if isinstance(item, n.Import):
            # the path is kept as written: the parser does not decode it
            self.leaf(item, f'import "{item.path}" as {item.name};')
        elif isinstance(item, n.Const):
            ty = f": {self.type(item.type)}" if item.type else ""
            self.leaf(item, f"const {item.name}{ty} = {self.expr(item.value)};")
        elif isinstance(item, n.StructDecl):
            self.struct_decl(item)
        elif isinstance(item, n.FnDecl):
            brace = _start(item.body)
            self.comments_before(brace)
            self.block(f"fn {self.signature(item)} ", item.body, item.span.line)
        elif isinstance(item, n.HostTypeDecl):
            self.host_type(item)
        elif isinstance(item, n.HostFn):
            self.leaf(item, f"host fn {self.signature(item)};")
        else:  # pragma: no cover - the parser builds no other item
            raise TypeError(f"unknown item {type(item).__name__}")

    def leaf(self, node, text: str) -> None:
        """A node printed on one line: comments inside it go above it."""
        self.comments_before(_end(node))
        self.line(text, node.span.line, node.span.end_line)

    def signature(self, fn: n.FnDecl | n.HostFn) -> str:
        params = ", ".join(f"{p.name}: {self.type(p.type)}" for p in fn.params)
        ret = f" -> {self.type(fn.ret)}" if fn.ret else ""
        return f"{fn.name}({params}){ret}"

    def struct_decl(self, item: n.StructDecl) -> None:
        self.members(f"struct {item.name}", item, item.fields, self._field)

    def host_type(self, item: n.HostTypeDecl) -> None:
        self.members(f"host type {item.name}", item, item.methods, self._method)

    def _field(self, f: n.StructField) -> None:
        self.leaf(f, f"{f.name}: {self.type(f.type)},")

    def _method(self, m: n.HostFn) -> None:
        self.leaf(m, f"fn {self.signature(m)};")

    def members(self, head: str, item: n.Item, members: list, print_one) -> None:
        """`head { member… }`, one member a line (struct fields, host methods)."""
        brace = self.brace_pos(item.name_span)
        self.comments_before(brace)
        close = _end(item)
        if not members and not self.has_comment_before(close):
            self.line(head + " {}", item.span.line, item.span.end_line)
            return
        self.opener(head + " {", item.span.line, brace[0])
        first = _start(members[0]) if members else close
        self.trailing(brace[0], first)
        self.sequence(members, close, print_one)
        self.closer("}", item.span.end_line)

    def sequence(self, nodes: list, close: tuple[int, int], print_one) -> None:
        """Print nodes one level deeper, each with its comments, then the
        comments before `close` (the closing brace)."""
        self.depth += 1
        for i, node in enumerate(nodes):
            nxt = _start(nodes[i + 1]) if i + 1 < len(nodes) else close
            self.comments_before(_start(node))
            print_one(node)
            self.trailing(node.span.end_line, nxt)
        self.comments_before(close)
        self.depth -= 1

    # --- statements -------------------------------------------------------------

    def block(
        self, head: str, block: n.Block, line: int, more: bool = False, chain: bool = False
    ) -> None:
        """`head{ statements }`, the caller having printed the comments before
        the `{`. An empty block prints `{}`, unless it is part of an `else`
        `chain`. With `more` the `}` is left for the caller to print with
        what follows it (`} else {`)."""
        close = (block.span.end_line, block.span.end_col - 1)
        if not chain and not block.stmts and not self.has_comment_before(close):
            self.line(head + "{}", line, block.span.end_line)
            return
        self.opener(head + "{", line, block.span.line)
        first = _start(block.stmts[0]) if block.stmts else close
        self.trailing(block.span.line, first)
        self.sequence(block.stmts, close, self.stmt)
        if not more:
            self.closer("}", block.span.end_line)

    def stmt(self, s: n.Stmt) -> None:
        if isinstance(s, n.If):
            self.if_stmt(s)
        elif isinstance(s, n.While):
            self.comments_before(_start(s.body))
            self.block(f"while {self.expr(s.cond, cond=_COND)} ", s.body, s.span.line)
        elif isinstance(s, n.For):
            self.comments_before(_start(s.body))
            head = f"for {s.name} in {self.expr(s.iterable, cond=_COND)} "
            self.block(head, s.body, s.span.line)
        else:
            self.leaf(s, self.simple_stmt(s))

    def if_stmt(self, s: n.If) -> None:
        """`if … { } else if … { } else { }`: each `}` shares its line with
        the next `else`; comments between a `}` and the next `{` move to the
        end of the block before."""
        blocks = [b for _, b in s.branches] + ([s.orelse] if s.orelse else [])
        self.comments_before(_start(blocks[0]))
        head, line = "if ", s.span.line
        for i, block in enumerate(blocks):
            if i < len(s.branches):
                head += self.expr(s.branches[i][0], cond=_COND) + " "
            more = i + 1 < len(blocks)
            self.block(head, block, line, more, chain=len(blocks) > 1)
            if more:
                self.depth += 1
                self.comments_before(_start(blocks[i + 1]))
                self.depth -= 1
                head = "} else if " if i + 1 < len(s.branches) else "} else "
                line = block.span.end_line
                self.allow_blank = False

    def simple_stmt(self, s: n.Stmt) -> str:
        if isinstance(s, n.Let):
            ty = f": {self.type(s.type)}" if s.type else ""
            return f"let {s.name}{ty} = {self.expr(s.value)};"
        if isinstance(s, n.Assign):
            v = s.value
            if isinstance(v, n.Binary) and v.left is s.target and v.span == s.span:
                return f"{self.expr(s.target, _STMT)} {v.op}= {self.expr(v.right)};"
            return f"{self.expr(s.target, _STMT)} = {self.expr(v)};"
        if isinstance(s, n.Return):
            return f"return {self.expr(s.value)};" if s.value is not None else "return;"
        if isinstance(s, n.Break):
            return "break;"
        if isinstance(s, n.Continue):
            return "continue;"
        if isinstance(s, n.ExprStmt):
            return f"{self.expr(s.expr, _STMT)};"
        raise TypeError(f"unknown statement {type(s).__name__}")  # pragma: no cover

    # --- types and expressions ------------------------------------------------

    def type(self, t: n.TypeRef) -> str:
        args = f"<{', '.join(self.type(a) for a in t.args)}>" if t.args else ""
        return "::".join(t.path) + args

    def expr(self, e: n.Expr, cond: tuple[type, ...] = ()) -> str:
        """`e` as source. The literals of the classes in `cond` outside any
        brackets are parenthesized, as the grammar asks: struct and map
        literals after `if`, `while`, `in` (_COND), map literals at the start
        of a statement (_STMT)."""
        if cond and isinstance(e, cond):
            return f"({self.expr(e)})"
        if isinstance(e, n.Binary):
            level = _BINARY[e.op]
            left = self.operand(e.left, level, cond)
            right = self.operand(e.right, level + 1, cond)
            return f"{left} {e.op} {right}"
        if isinstance(e, n.Unary):
            operand = self.operand(e.operand, _UNARY, cond)
            # `- -a`, not `--a`, which reads as a decrement
            return e.op + (" " if e.op == "-" and operand.startswith("-") else "") + operand
        if isinstance(e, n.Call | n.MethodCall | n.FieldAccess | n.Index):
            return self.postfix(e, cond)
        return self.atom(e)

    def operand(self, e: n.Expr, min_level: int, cond: tuple[type, ...]) -> str:
        if _level(e) < min_level:
            return f"({self.expr(e)})"
        return self.expr(e, cond)

    def postfix(self, e: n.Expr, cond: tuple[type, ...]) -> str:
        if isinstance(e, n.Call):
            # `(a.b)(x)` is a call of a field; without parentheses it would
            # read back as the method call `a.b(x)`
            func = e.func
            head = (
                f"({self.expr(func)})"
                if isinstance(func, n.FieldAccess)
                else self.operand(func, _POSTFIX, cond)
            )
            return f"{head}({self.args(e.args)})"
        if isinstance(e, n.MethodCall):
            recv = self.operand(e.receiver, _POSTFIX, cond)
            return f"{recv}.{e.method}({self.args(e.args)})"
        if isinstance(e, n.FieldAccess):
            return f"{self.operand(e.obj, _POSTFIX, cond)}.{e.name}"
        assert isinstance(e, n.Index)
        return f"{self.operand(e.obj, _POSTFIX, cond)}[{self.expr(e.index)}]"

    def args(self, args: list[n.Expr]) -> str:
        return ", ".join(self.expr(a) for a in args)

    def atom(self, e: n.Expr) -> str:
        if isinstance(e, n.IntLit):
            return self.int_text(e)
        if isinstance(e, n.StrLit):
            return quote(e.value)
        if isinstance(e, n.BoolLit):
            return "true" if e.value else "false"
        if isinstance(e, n.Name):
            return e.name
        if isinstance(e, n.Path):
            return "::".join(e.parts)
        if isinstance(e, n.ListLit):
            return f"[{self.args(e.items)}]"
        if isinstance(e, n.MapLit):
            entries = ", ".join(f"{self.expr(k)}: {self.expr(v)}" for k, v in e.entries)
            return f"{{ {entries} }}" if entries else "{}"
        if isinstance(e, n.StructLit):
            inits = ", ".join(f"{f.name}: {self.expr(f.value)}" for f in e.fields)
            name = "::".join(e.path)
            return f"{name} {{ {inits} }}" if inits else f"{name} {{}}"
        raise TypeError(f"unknown expression {type(e).__name__}")  # pragma: no cover

    def int_text(self, e: n.IntLit) -> str:
        """An integer as the author spelled it (`25_000_000` keeps its `_`)."""
        s = e.span
        if s.line == s.end_line and 1 <= s.line <= len(self.src):
            text = self.src[s.line - 1][s.col - 1 : s.end_col - 1]
            digits = text.replace("_", "")
            if digits.isascii() and digits.isdigit() and parse_decimal(digits) == e.value:
                return text
        return int_text(e.value)


def _level(e: n.Expr) -> int:
    if isinstance(e, n.Binary):
        return _BINARY[e.op]
    if isinstance(e, n.Unary):
        return _UNARY
    if isinstance(e, n.Call | n.MethodCall | n.FieldAccess | n.Index):
        return _POSTFIX
    return _ATOM


_NOT_SHAPE = frozenset({"span", "name_span", "method_span", "ty", "ref"})


def tree_shape(node: object) -> object:
    """A node as nested tuples, without spans, annotations or comments, so
    two parses of one program compare equal however they are laid out. A
    module's imports come first, as the formatter prints them."""
    if isinstance(node, n.Module):
        items = [i for i in node.items if isinstance(i, n.Import)]
        items += [i for i in node.items if not isinstance(i, n.Import)]
        return ("Module", tree_shape(items))
    if isinstance(node, list | tuple):
        return tuple(tree_shape(x) for x in node)
    slots = getattr(type(node), "__dataclass_fields__", None)
    if slots is None:
        return node
    fields = tuple((k, tree_shape(getattr(node, k))) for k in slots if k not in _NOT_SHAPE)
    return (type(node).__name__, fields)
