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
        generator of its own)."""
        match = self.master.match
        literals, keywords = self.literals, self.keywords
        new_token = Token._future_new  # Token() without its keyword-argument shim
        str_new = str.__new__
        pos, line, line_start, stop, last = 0, 1, 0, len(text), None
        spaced = self.spaced.match
        while pos < stop:
            m = spaced(text, pos)
            if m is None:  # no token next: whitespace to the end, or an unreadable character
                m = match(text, pos)
                if m is not None:  # whitespace alone
                    nxt = m.end()
                    newlines = text.count("\n", pos, nxt)
                    if newlines:
                        line += newlines
                        line_start = text.rindex("\n", pos, nxt) + 1
                    pos = nxt
                    continue
                col = pos - line_start + 1
                if not recovering:
                    raise UnexpectedCharacters(text, pos, line, col)
                nxt = pos + 1
                if text[pos] == '"':  # unterminated: the string runs to the end of the line
                    nxt = text.find("\n", pos)
                    nxt = stop if nxt < 0 else nxt
                while nxt < stop and text[nxt] != '"' and match(text, nxt) is None:
                    nxt += 1  # a run of unreadable characters is one error
                last = new_token(BAD, text[pos:nxt], pos, line, col, line, col + nxt - pos, nxt)
                yield last
                pos = nxt
                continue
            kind, nxt = m.lastgroup, m.end()
            value = m.group(kind)
            start = nxt - len(value)
            if start != pos:  # the whitespace before it
                newlines = text.count("\n", pos, start)
                if newlines:
                    line += newlines
                    line_start = text.rindex("\n", pos, start) + 1
            if kind == "PUNCT":
                kind = literals[value]
            elif kind == "NAME":
                kind = keywords.get(value, "NAME")
            col = start - line_start + 1
            # Token._future_new, inlined: a token is made for every word of a file
            tok = str_new(Token, value)
            tok.type, tok.value, tok.start_pos, tok.end_pos = kind, value, start, nxt
            tok.line = tok.end_line = line
            tok.column, tok.end_column = col, col + nxt - start
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


def _alternatives(term) -> list[str]:
    """The literal strings a string terminal stands for (`EQ: "="` -> ["="])."""
    return [term.pattern.value]
