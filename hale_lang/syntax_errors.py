"""Turning Lark's parse errors into Hale diagnostics.

Lark reports the offending token and the terminals it would have accepted.
We name the token as a reader sees it, translate terminal names into the
characters or words they stand for, and add a hint for the usual slips
(a missing `;`, an unclosed brace).
"""

from __future__ import annotations

from .diagnostics import Diagnostic, HaleError, Span

# Lark's names for anonymous terminals -> what the user typed
_PUNCT = {
    "SEMICOLON": "`;`",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "DOT": "`.`",
    "EQ": "`=`",
    "PLUSEQ": "`+=`",
    "MINUSEQ": "`-=`",
    "STAREQ": "`*=`",
    "SLASHEQ": "`/=`",
    "PERCENTEQ": "`%=`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "PERCENT": "`%`",
    "EQEQ": "`==`",
    "NE": "`!=`",
    "LE": "`<=`",
    "GE": "`>=`",
    "LT": "`<`",
    "GT": "`>`",
    "__ANON_0": "`->`",
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "OROR": "`||`",
    "ANDAND": "`&&`",
    "NOT": "`!`",
    "$END": "the end of the file",
}


def _describe(term: str) -> str:
    if term in _PUNCT:
        return _PUNCT[term]
    if term.isupper() and term.isalpha():
        return f"`{term.lower()}`"
    return term.lower()


def _expected(terms) -> str:
    names = sorted({_describe(t) for t in terms})
    if len(names) > 6:
        return "an expression, a statement or an item"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def syntax_diagnostic(error: Exception, text: str, path: str) -> Diagnostic:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError

    if isinstance(error, VisitError) and isinstance(error.orig_exc, HaleError):
        return error.orig_exc.diagnostics[0]
    if isinstance(error, UnexpectedToken):
        tok = error.token
        if tok.type == "$END":
            line, col = _end_of(text)
            span = Span(path, line, col, line, col + 1)
            found = "the end of the file"
        else:
            span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column)
            found = f"`{tok}`"
        expected = error.accepts or error.expected
        return Diagnostic(
            "E0001",
            f"expected {_expected(expected)}, found {found}",
            span,
            help=_hint(expected, found),
        )
    if isinstance(error, UnexpectedCharacters):
        ch = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        msg = "unterminated string" if ch == '"' else f"unexpected character `{ch}`"
        return Diagnostic("E0002", msg, span)
    if isinstance(error, UnexpectedEOF):
        line, col = _end_of(text)
        return Diagnostic(
            "E0001",
            f"unexpected end of file, expected {_expected(error.expected)}",
            Span(path, line, col, line, col + 1),
        )
    raise error


def _hint(expected, found: str) -> str | None:
    if "SEMICOLON" in expected:
        return "statements and items end with `;`"
    if "RBRACE" in expected and found == "the end of the file":
        return "a `{` is never closed"
    return None


def _end_of(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1
