"""Syntax error recovery: report an error, then resynchronise and go on, so
one parse finds every syntax error of a file.

At an error the driver (`lalr.Driver`) hands over its two stacks and the
token stream. Recovery reports the error, then skips tokens up to the next
synchronising token, counting the `{`/`}` it skips:

- `;` (outside anything skipped): consumed; parsing resumes at the nearest
  statement boundary on the stack (a state that would shift `let`), or at
  the item level (a state that would shift `const`);
- `}`: when it closes a `{` still open on the stack, the stack is popped
  to the nearest state above that `{` that accepts it, and it is shifted;
  when it closes a `{` that was itself skipped, the whole `{ … }` group was
  skipped (an `if x = 1 { … }`) and parsing resumes after it, as after `;`;
  a `}` that closes nothing is skipped;
- an item keyword (`fn`, `const`, `struct`, `import`, `host`) in the first
  column, and the end of the file: the stack is popped to the item level.

Popping discards the partial construct. When it discards the head of an
item (`fn name`, `const NAME`, …), the item's kind and name are kept, so the
checker can declare the name and stay silent about its uses instead of
reporting them undefined.

A `;` left out at the end of a line (or before a `}`) is reported and then
taken as written, when the token that follows fits after it: nothing is
skipped, so the statement on the next line is still parsed.

Cascades: an error at the token where parsing resumed, or at the one after
it, is a consequence of the previous one and is not reported (yacc waits
three tokens), except at an item keyword in the first column and at the
end of the file, where a still-open `{` is an error of its own. After 50 errors in a file
the rest of it is skipped, with one last error saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from lark import Token

from . import nodes as n
from .diagnostics import Span

END = "$END"
ITEM_KEYWORDS = frozenset(("FN", "CONST", "STRUCT", "IMPORT", "HOST"))
_QUIET_TOKENS = 2
MAX_ERRORS = 50  # per file: each costs a look back through the text


class Recovery:
    """One file's recovery: the positions of its errors, the items cut short."""

    def __init__(
        self, driver: Any, report: Callable, give_up: Callable, count_tokens: Callable, path: str
    ):
        self.driver, self.report, self.give_up = driver, report, give_up
        self.count_tokens, self.path = count_tokens, path
        self.reports = 0
        self.errors: list[tuple[int, int]] = []  # (line, col) of every error token
        self.lost: list[n.BrokenItem] = []
        self._resumed_at: Token | None = None
        self._reported: Token | None = None

    def add_error(self, line: int, col: int) -> None:
        self.errors.append((line, col))

    # --- the driver's entry point -------------------------------------------------

    def resume(self, states: list, values: list, tok: Token, stream: Iterator[Token]) -> Token:
        """Report the error at `tok` (unless it is a cascade), resynchronise,
        and return the token to go on with."""
        if tok.type != END and not _item_start(tok):  # those end the item before them
            self.add_error(tok.line, tok.column)
        if self._worth_reporting(tok):
            self._reported = tok
            self.reports += 1
            if self.reports > MAX_ERRORS:  # give up: the rest of the file is one more error
                self.give_up(tok)
                tok = _drain(tok, stream)
            else:
                self.report(tok, self.driver.accepts(states), values)
        if self._missing_semicolon(states, values, tok):
            self.driver.feed(states, values, Token.new_borrow_pos("SEMICOLON", ";", tok))
        else:
            tok = self._synchronise(states, values, tok, stream)
        self._resumed_at = tok
        return tok

    def _missing_semicolon(self, states: list, values: list, tok: Token) -> bool:
        """A `;` left out at the end of a line, or before a `}`: parsing goes
        on as if it were there, so the next statement is not lost."""
        if not values or not self.driver.shifts_after(states, "SEMICOLON", tok.type):
            return False
        if tok.type == "RBRACE":
            return True
        last = values[-1]
        span = getattr(last, "span", None)
        end_line = last.end_line if type(last) is Token else span.end_line if span else None
        return end_line is not None and end_line < tok.line

    def _worth_reporting(self, tok: Token) -> bool:
        if tok is self._reported:
            return False
        last = self._resumed_at
        if last is None or tok.type == END or _item_start(tok):
            return True
        return self.count_tokens(last.start_pos, tok.start_pos, _QUIET_TOKENS) >= _QUIET_TOKENS

    def _synchronise(self, states: list, values: list, tok: Token, stream) -> Token:
        depth = 0  # `{` skipped and not yet closed
        unmatched = False  # no `{` open on the stack (values do not change while skipping)
        while True:
            kind = tok.type
            if kind == END or _item_start(tok):
                self._pop_to_item(states, values, kind)
                return tok
            if kind == "LBRACE":
                depth += 1
            elif kind == "RBRACE" and depth:
                depth -= 1
                if not depth:  # a whole `{ … }` was skipped: go on after it
                    return self._after_end(states, values, next(stream))
            elif kind == "RBRACE" and not unmatched:
                if self._close(states, values):
                    return tok
                unmatched = True
            elif kind == "SEMICOLON" and not depth:
                return self._after_end(states, values, next(stream))
            tok = next(stream)

    # --- popping the stacks -------------------------------------------------------

    def _after_end(self, states: list, values: list, tok: Token) -> Token:
        """After a statement's end: pop to a statement boundary or the item level."""
        shifts = self.driver.shifts
        k = len(states)
        while not shifts(states, "LET", k) and not shifts(states, "CONST", k):
            k -= 1
        self._cut(states, values, k)
        return tok

    def _close(self, states: list, values: list) -> bool:
        """A `}` that closes a `{` open on the stack: pop to where it is accepted."""
        at = _last_open_brace(values)
        if at is None:
            return False
        shifts = self.driver.shifts
        k = len(states)
        while k > at + 2 and not shifts(states, "RBRACE", k):
            k -= 1
        self._cut(states, values, k)
        return shifts(states, "RBRACE")

    def _pop_to_item(self, states: list, values: list, kind: str) -> None:
        shifts = self.driver.shifts
        k = len(states)
        while not shifts(states, kind, k):
            k -= 1
        self._cut(states, values, k)

    def _cut(self, states: list, values: list, k: int) -> None:
        """Pop the stacks to `k` states, keeping the name of an item cut short."""
        if k == len(states):
            return
        popped = values[k - 1 :]
        del states[k:]
        del values[k - 1 :]
        if self.driver.shifts(states, "CONST"):  # back at the item level
            self._keep_name(popped)

    def _keep_name(self, popped: list) -> None:
        """The kind and name of an item whose head the pop discards."""
        heads = [v for v in popped[:4] if type(v) is Token]
        kinds = [t.type for t in heads]
        kind = {"FN": "fn", "CONST": "const", "STRUCT": "struct", "IMPORT": "import"}.get(
            kinds[0] if kinds else ""
        )
        if kinds[:2] == ["HOST", "FN"]:
            kind = "hostfn"
        elif kinds[:2] == ["HOST", "TYPE"]:
            kind = "hosttype"
        name = next((t for t in heads if t.type == "NAME"), None)
        if kind is None or name is None:
            return
        first = heads[0]
        span = Span(self.path, first.line, first.column, name.end_line, name.end_column)
        name_span = Span(self.path, name.line, name.column, name.end_line, name.end_column)
        self.lost.append(n.BrokenItem(str(name), span, name_span, kind))


def _drain(tok: Token, stream: Iterator[Token]) -> Token:
    """The end of the file, skipping everything before it."""
    while tok.type != END:
        tok = next(stream)
    return tok


def _item_start(tok: Token) -> bool:
    return tok.type in ITEM_KEYWORDS and tok.column == 1


def _last_open_brace(values: list) -> int | None:
    for i in range(len(values) - 1, -1, -1):
        v = values[i]
        if type(v) is Token and v.type == "LBRACE":
            return i
    return None


def open_brace(values: list) -> Token | None:
    """The innermost `{` still open on the stack, if any."""
    at = _last_open_brace(values)
    return None if at is None else values[at]
