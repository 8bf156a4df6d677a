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
from .diagnostics import Diagnostic, HaleError, Span
from .limits import headroom
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


FMT_MAX_BLOCK_DEPTH = 10_000  # deeper, a file is refused (E0320) rather than formatted


def format_source(text: str, path: str) -> str:
    """The canonical layout of `text`. Raises HaleError on a syntax error,
    or for blocks nested past FMT_MAX_BLOCK_DEPTH. Expressions print with
    an explicit stack; blocks recurse, with the stack they need lent."""
    module = parse(text, path)
    depth, deepest = _block_depth(module)
    if depth > FMT_MAX_BLOCK_DEPTH:
        msg = f"blocks nest deeper than {FMT_MAX_BLOCK_DEPTH:,} levels: too deep to format"
        help = "move the inner blocks into a fn of their own"
        raise HaleError(Diagnostic("E0320", msg, deepest, help))
    with headroom(2000 + 12 * depth):
        return format_module(module, text)


def _block_depth(module: n.Module) -> tuple[int, Span | None]:
    """How deep blocks nest in the module, and where the deepest opens."""
    best, where = 0, None
    stack = [(i.body, 1, i.span) for i in module.items if isinstance(i, n.FnDecl)]
    while stack:
        block, depth, span = stack.pop()
        if depth > best:
            best, where = depth, span
        for st in block.stmts:
            if isinstance(st, n.If):
                stack += [(b, depth + 1, st.span) for _, b in st.branches]
                if st.orelse is not None:
                    stack.append((st.orelse, depth + 1, st.span))
            elif isinstance(st, n.While | n.For):
                stack.append((st.body, depth + 1, st.span))
    return best, where


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
        of a statement (_STMT).

        Printed with an explicit stack, so any nesting prints: each node
        splits into its operands (with whether each needs parentheses) and a
        function joining their texts. Texts are kept as trees of pieces
        (flattened once at the end), so a long chain is not copied at every
        operator."""
        results: list[tuple[object, str]] = []  # (tree of pieces, first character)
        todo: list = [(e, cond)]
        while todo:
            task = todo.pop()
            if task[0] is _JOIN:
                _, join, k = task
                parts = results[len(results) - k :]
                del results[len(results) - k :]
                results.append(join(parts))
                continue
            node, c = task
            kids, join = self._split(node, c)
            todo.append((_JOIN, join, len(kids)))
            todo.extend(reversed(kids))
        return _flatten(results[0][0])

    def _split(self, e: n.Expr, cond: tuple[type, ...]):
        """(operands, each with its `cond`), and how their texts join."""
        if cond and isinstance(e, cond):
            return [(e, ())], lambda t: _piece("(", t[0], ")")
        if isinstance(e, n.Binary):
            level = _BINARY[e.op]
            wl, wr = _level(e.left) < level, _level(e.right) < level + 1
            op = f" {e.op} "
            return [(e.left, () if wl else cond), (e.right, () if wr else cond)], lambda t: _piece(
                _wrap(t[0], wl), op, _wrap(t[1], wr)
            )
        if isinstance(e, n.Unary):
            w = _level(e.operand) < _UNARY
            # `- -a`, not `--a`, which reads as a decrement
            return [(e.operand, () if w else cond)], lambda t: _piece(
                e.op + (" " if e.op == "-" and not w and t[0][1] == "-" else ""), _wrap(t[0], w)
            )
        if isinstance(e, n.Call | n.MethodCall | n.FieldAccess | n.Index):
            return self._split_postfix(e, cond)
        return self._split_atom(e)

    def _split_postfix(self, e: n.Expr, cond: tuple[type, ...]):
        if isinstance(e, n.Call):
            # `(a.b)(x)` is a call of a field; without parentheses it would
            # read back as the method call `a.b(x)`
            w = isinstance(e.func, n.FieldAccess) or _level(e.func) < _POSTFIX
            kids = [(e.func, () if w else cond)] + [(a, ()) for a in e.args]
            return kids, lambda t: _piece(_wrap(t[0], w), "(", _commas(t[1:]), ")")
        if isinstance(e, n.MethodCall):
            w = _level(e.receiver) < _POSTFIX
            kids = [(e.receiver, () if w else cond)] + [(a, ()) for a in e.args]
            name = f".{e.method}("
            return kids, lambda t: _piece(_wrap(t[0], w), name, _commas(t[1:]), ")")
        if isinstance(e, n.FieldAccess):
            w = _level(e.obj) < _POSTFIX
            return [(e.obj, () if w else cond)], lambda t: _piece(_wrap(t[0], w), "." + e.name)
        w = _level(e.obj) < _POSTFIX
        return [(e.obj, () if w else cond), (e.index, ())], lambda t: _piece(
            _wrap(t[0], w), "[", t[1], "]"
        )

    def _split_atom(self, e: n.Expr):
        if isinstance(e, n.ListLit):
            return [(x, ()) for x in e.items], lambda t: _piece("[", _commas(t), "]")
        if isinstance(e, n.MapLit):
            kids = [(x, ()) for kv in e.entries for x in kv]

            def entries(t):
                if not t:
                    return _piece("{}")
                pairs = [_piece(t[i], ": ", t[i + 1]) for i in range(0, len(t), 2)]
                return _piece("{ ", _commas(pairs), " }")

            return kids, entries
        if isinstance(e, n.StructLit):
            name = "::".join(e.path)
            names = [f.name for f in e.fields]

            def struct(t):
                if not t:
                    return _piece(name + " {}")
                inits = [_piece(f + ": ", v) for f, v in zip(names, t, strict=True)]
                return _piece(name + " { ", _commas(inits), " }")

            return [(f.value, ()) for f in e.fields], struct
        text = self.atom(e)
        return [], lambda t: _piece(text)

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


_JOIN = object()


def _piece(*parts) -> tuple[object, str]:
    """A text made of strings and other texts, with its first character."""
    first = ""
    for p in parts:
        first = p[:1] if isinstance(p, str) else p[1]
        if first:
            break
    return (tuple(p if isinstance(p, str) else p[0] for p in parts), first)


def _wrap(text: tuple[object, str], parens: bool) -> tuple[object, str]:
    return _piece("(", text, ")") if parens else text


def _commas(texts: list) -> tuple[object, str]:
    parts: list = []
    for i, t in enumerate(texts):
        if i:
            parts.append(", ")
        parts.append(t)
    return _piece(*parts) if parts else ("", "")


def _flatten(tree: object) -> str:
    out: list[str] = []
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        else:
            stack.extend(reversed(x))
    return "".join(out)


def _level(e: n.Expr) -> int:
    if isinstance(e, n.Binary):
        return _BINARY[e.op]
    if isinstance(e, n.Unary):
        return _UNARY
    if isinstance(e, n.Call | n.MethodCall | n.FieldAccess | n.Index):
        return _POSTFIX
    return _ATOM


_NOT_SHAPE = frozenset({"span", "name_span", "method_span", "ty", "ref"})


def tree_shape(node: object) -> tuple:
    """A node as a flat tuple (its nodes in pre-order, each with its field
    names and the number of its children), without spans, annotations or
    comments, so two parses of one program compare equal however they are
    laid out, and at any depth. A module's imports come first, as the
    formatter prints them."""
    if isinstance(node, n.Module):
        items = [i for i in node.items if isinstance(i, n.Import)]
        items += [i for i in node.items if not isinstance(i, n.Import)]
        node = ("Module", items)
    out: list[object] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, list | tuple):
            out.append(("seq", len(x)))
            stack.extend(reversed(x))
            continue
        slots = getattr(type(x), "__dataclass_fields__", None)
        if slots is None:
            out.append(x)
            continue
        keys = tuple(k for k in slots if k not in _NOT_SHAPE)
        out.append((type(x).__name__, keys))
        stack.extend(getattr(x, k) for k in reversed(keys))
    return tuple(out)
