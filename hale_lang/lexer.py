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
                    self.keywords[value] = str(term.name)
                else:
                    literals[value] = str(term.name)
        self.literals = literals
        # longest literal first, so `==` wins over `=` and `->` over `-`
        punct = "|".join(re.escape(v) for v in sorted(literals, key=len, reverse=True))
        named = "|".join(f"(?P<{k}>{p})" for k, p in _PATTERNS.items())
        self.master = re.compile(rf"[ \t\r\n]+|{named}|(?P<PUNCT>{punct})")

    def lex(self, text: str, recovering: bool = False) -> Iterator[Token]:
        match = self.master.match
        literals, keywords = self.literals, self.keywords
        new_token = Token._future_new  # Token() without its keyword-argument shim
        pos, line, line_start, end = 0, 1, 0, len(text)
        while pos < end:
            m = match(text, pos)
            if m is None:
                col = pos - line_start + 1
                if not recovering:
                    raise UnexpectedCharacters(text, pos, line, col)
                nxt = pos + 1
                if text[pos] == '"':  # unterminated: the string runs to the end of the line
                    nxt = text.find("\n", pos)
                    nxt = end if nxt < 0 else nxt
                while nxt < end and text[nxt] != '"' and match(text, nxt) is None:
                    nxt += 1  # a run of unreadable characters is one error
                yield new_token(BAD, text[pos:nxt], pos, line, col, line, col + nxt - pos, nxt)
                pos = nxt
                continue
            kind, value, nxt = m.lastgroup, m.group(), m.end()
            col = pos - line_start + 1
            if kind is None:  # whitespace
                newlines = value.count("\n")
                if newlines:
                    line += newlines
                    line_start = pos + value.rindex("\n") + 1
            else:
                if kind == "PUNCT":
                    kind = literals[value]
                elif kind == "NAME":
                    kind = keywords.get(value, "NAME")
                tok = new_token(kind, value, pos, line, col, line, col + len(value), nxt)
                if kind == "COMMENT":
                    if self.on_comment is not None:
                        self.on_comment(tok)
                else:
                    yield tok
            pos = nxt

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
