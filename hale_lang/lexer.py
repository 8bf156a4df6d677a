"""The Hale lexer: one master regular expression, fed to Lark's LALR parser.

Lark's own lexers try each terminal per position; ours matches the whole
token set with one compiled alternation and a `lastgroup` lookup, about three
times faster, which is most of a cold parse. Terminal names are read from the
Lark grammar so the two cannot drift: each literal (`{`, `fn`, `->`, …) is a
string terminal there, and the four pattern terminals (NAME, INT, STRING,
COMMENT) are matched here by the same expressions. A NAME that spells a
keyword becomes that keyword's terminal.

Comments are handed to a callback (the formatter keeps them) and never reach
the parser. A character no token starts with raises Lark's
UnexpectedCharacters, or, when the parser recovers from errors, becomes a
`$BAD` token (a run of such characters, or an unterminated string with the
rest of its line) that the parser reports and skips.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

from lark.exceptions import UnexpectedCharacters
from lark.lexer import Lexer, Token

BAD = "$BAD"

_PATTERNS = {
    "COMMENT": r"//[^\n]*",
    "STRING": r'"(?:\\.|[^"\\\n])*"',
    "NAME": r"[A-Za-z_][A-Za-z0-9_]*",
    "INT": r"[0-9][0-9_]*",
}


class HaleLexer(Lexer):
    """A Lark custom lexer (interface 0: it receives the whole text)."""

    __future_interface__ = 0
    on_comment: Callable[[Token], None] | None = None

    def __init__(self, lexer_conf):
        literals: dict[str, str] = {}
        self.keywords: dict[str, str] = {}
        for term in lexer_conf.terminals:
            if term.name in _PATTERNS or term.pattern.type != "str":
                continue
            for value in _alternatives(term):
                if re.fullmatch(_PATTERNS["NAME"], value):
                    self.keywords[value] = sys.intern(str(term.name))
                else:
                    literals[value] = sys.intern(str(term.name))
        self.literals = literals
        # longest literal first, so `==` wins over `=` and `->` over `-`
        punct = "|".join(re.escape(v) for v in sorted(literals, key=len, reverse=True))
        named = "|".join(f"(?P<{k}>{p})" for k, p in _PATTERNS.items())
        self.master = re.compile(rf"[ \t\r\n]+|{named}|(?P<PUNCT>{punct})")
        # a token with the whitespace before it: one match a token, not two
        self.spaced = re.compile(rf"[ \t\r\n]*(?:{named}|(?P<PUNCT>{punct}))")

    def lex(self, text: str, recovering: bool = False, end: str | None = None) -> Iterator[Token]:
        """The tokens of `text`; then, given `end`, a token of that type at the
        end of the last one (the parser's end marker, so it needs no wrapper
        generator of its own).

        No token holds a newline, so lines are counted only when a token
        starts past the next newline, not in the whitespace before each."""
        literals, keywords = self.literals, self.keywords
        str_new = str.__new__
        pos, line, line_start, stop, last = 0, 1, 0, len(text), None
        if text.startswith("\ufeff"):  # a UTF-8 byte order mark: not a token, still column 1
            pos = 1
        spaced, find = self.spaced.match, text.find
        next_nl = find("\n")
        next_nl = stop if next_nl < 0 else next_nl
        while pos < stop:
            m = spaced(text, pos)
            if m is None:  # whitespace to the end, or a character no token starts with
                start = self._unreadable(text, pos)
                if start == stop:
                    break
                if start > next_nl:
                    line, line_start, next_nl = _newlines(text, line, next_nl, start)
                col = start - line_start + 1
                if not recovering:
                    raise UnexpectedCharacters(text, start, line, col)
                nxt = self._bad_run(text, start)
                last = Token._future_new(
                    BAD, text[start:nxt], start, line, col, line, col + nxt - start, nxt
                )
                yield last
                pos = nxt
                continue
            kind = m.lastgroup
            nxt = m.end()
            value = m.group(kind)
            start = nxt - len(value)
            if start > next_nl:  # _newlines, inlined: once a line
                line += text.count("\n", next_nl, start)
                line_start = text.rindex("\n", next_nl, start) + 1
                next_nl = find("\n", start)
                next_nl = stop if next_nl < 0 else next_nl
            if kind == "PUNCT":
                kind = literals[value]
            elif kind == "NAME":
                kind = keywords.get(value, "NAME")
            col = start - line_start + 1
            # Token._future_new, inlined (a token is made for every word of a
            # file), one store a statement: a tuple of four would be built first
            tok = str_new(Token, value)
            tok.type = kind
            tok.value = value
            tok.start_pos = start
            tok.end_pos = nxt
            tok.line = tok.end_line = line
            tok.column = col
            tok.end_column = col + nxt - start
            if kind == "COMMENT":
                if self.on_comment is not None:
                    self.on_comment(tok)
            else:
                last = tok
                yield tok
            pos = nxt
        if end is not None:
            if last is None:
                yield Token(end, "", 0, 1, 1, 1, 1, 0)
            else:
                yield Token.new_borrow_pos(end, "", last)

    def _unreadable(self, text: str, pos: int) -> int:
        """Where the whitespace from `pos` ends: the end of the text, or a
        character no token starts with."""
        m = self.master.match(text, pos)
        while m is not None and m.lastgroup is None:
            pos = m.end()
            m = self.master.match(text, pos)
        return pos

    def _bad_run(self, text: str, pos: int) -> int:
        """The end of the error token at `pos`: a run of unreadable
        characters, or an unterminated string with the rest of its line."""
        stop, match = len(text), self.master.match
        nxt = pos + 1
        if text[pos] == '"':
            nxt = text.find("\n", pos)
            nxt = stop if nxt < 0 else nxt
        while nxt < stop and text[nxt] != '"' and match(text, nxt) is None:
            nxt += 1
        return nxt

    def count(self, text: str, start: int, end: int, limit: int) -> int:
        """How many tokens `text[start:end]` holds, counting up to `limit`."""
        match, pos, k = self.master.match, start, 0
        while pos < end and k < limit:
            m = match(text, pos)
            if m is None:
                k, pos = k + 1, pos + 1
                continue
            if m.lastgroup is not None and m.lastgroup != "COMMENT":
                k += 1
            pos = m.end()
        return k


def _newlines(text: str, line: int, next_nl: int, start: int) -> tuple[int, int, int]:
    """Line, line start and next newline for a token at `start`, past the
    newline at `next_nl` (and maybe more)."""
    line += text.count("\n", next_nl, start)
    line_start = text.rindex("\n", next_nl, start) + 1
    next_nl = text.find("\n", start)
    return line, line_start, len(text) if next_nl < 0 else next_nl


def _alternatives(term) -> list[str]:
    """The literal strings a string terminal stands for (`EQ: "="` -> ["="])."""
    return [term.pattern.value]
