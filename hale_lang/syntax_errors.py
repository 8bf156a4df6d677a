"""Turning Lark's parse errors into Hale diagnostics.

Lark reports the offending token and the terminals it would have accepted.
We name the token as a reader sees it, translate terminal names into the
characters or words they stand for (the whole set of statement or
expression openers becomes "a statement" or "an expression"), and add a
hint for the usual slips: a missing `;`, a `let` outside a `fn`, a keyword
used as a name, a stray `}`. At the end of the file an unclosed bracket is
reported at the bracket itself.
"""

from __future__ import annotations

import re

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
    if term.startswith("__ANON"):  # `->`, `::`: literals Lark did not name
        return f"`{_ANONYMOUS.get(term, term)}`"
    if term.isupper() and term.isalpha():
        return f"`{term.lower()}`"
    return term.lower()


_EXPR_START = {"INT", "STRING", "NAME", "TRUE", "FALSE", "LPAR", "LSQB", "LBRACE", "MINUS", "NOT"}
_STMT_START = {"LET", "IF", "WHILE", "FOR", "RETURN", "BREAK", "CONTINUE"}
_ITEM_START = {"IMPORT", "CONST", "STRUCT", "FN", "HOST"}
_BINOPS = {"OROR", "ANDAND", "EQEQ", "NE", "LE", "GE", "LT", "GT"}
_BINOPS |= {"PLUS", "MINUS", "STAR", "SLASH", "PERCENT"}
_ASSIGN = {"EQ", "PLUSEQ", "MINUSEQ", "STAREQ", "SLASHEQ", "PERCENTEQ"}


def _expected(terms) -> str:
    """What the parser would have accepted, in words: the whole set of
    statement, expression or item openers becomes one phrase."""
    terms = set(terms)
    phrases = []
    if _ITEM_START <= terms:
        phrases.append("an item (`import`, `const`, `struct`, `fn` or `host`)")
        terms -= _ITEM_START
    if _STMT_START <= terms:
        phrases.append("a statement")
        terms -= _STMT_START | _EXPR_START
    elif {"INT", "STRING", "NAME", "LPAR"} <= terms:
        phrases.append("an expression")
        terms -= _EXPR_START
    elif _BINOPS <= terms:  # after an operand: what may continue it
        phrases.append("an operator")
        terms -= _BINOPS | _ASSIGN | {"DOT", "LSQB", "LPAR"}
    if _ASSIGN <= terms:
        phrases.append("an assignment")
        terms -= _ASSIGN
    names = phrases + sorted({_describe(t) for t in terms})
    if len(names) > 6:
        return "an expression, a statement or an item"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


# The grammar's anonymous terminals (`__ANON_0` -> `->`): the parser hands them over
# when it builds Lark (`learn_terminals`), so this module never imports the parser.
_ANONYMOUS: dict[str, str] = {}


def learn_terminals(terminals) -> None:
    """Keep what each of the grammar's anonymous terminals stands for."""
    _ANONYMOUS.update((t.name, t.pattern.value) for t in terminals if t.name.startswith("__ANON"))


def token_diagnostic(tok, accepts, values: list, text: str, path: str) -> Diagnostic:
    """The diagnostic for an unexpected token, given the parser's stack."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    from .lexer import BAD
    from .recovery import open_brace

    if tok.type == BAD:  # a character the lexer could not read
        error = UnexpectedCharacters(text, tok.start_pos, tok.line, tok.column)
        return syntax_diagnostic(error, text, path)
    if tok.column == 1 and tok.type in _ITEM_START and "RBRACE" in accepts:
        brace = open_brace(values)
        if brace is not None:
            return Diagnostic(
                "E0001",
                f"expected `}}`, found `{tok}`",
                Span(path, tok.line, tok.column, tok.end_line, tok.end_column),
                help=f"the `{{` at line {brace.line} is never closed: close it before the next item",
            )
    return syntax_diagnostic(UnexpectedToken(tok, accepts), text, path)


def too_many_errors(tok, path: str) -> Diagnostic:
    span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column)
    return Diagnostic(
        "E0001",
        "too many syntax errors: the rest of the file is not read",
        span,
        help="fix the errors above and check again",
    )


def syntax_diagnostic(error: Exception, text: str, path: str) -> Diagnostic:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError

    if isinstance(error, VisitError) and isinstance(error.orig_exc, HaleError):
        return error.orig_exc.diagnostics[0]
    if isinstance(error, UnexpectedToken):
        tok = error.token
        expected = error.accepts or error.expected
        if tok.type == "$END":
            unclosed = _unclosed(text, path)
            if unclosed is not None:
                return unclosed
            line, col = _end_of(text)
            span = Span(path, line, col, line, col + 1)
            found = "the end of the file"
        else:
            span = Span(path, tok.line, tok.column, tok.end_line, tok.end_column)
            found = f"`{tok}`"
            word = _ELSE_IF.search(text, 0, tok.start_pos)
            if word is not None:
                return _else_if(word, text, path)
            if "SEMICOLON" in expected:
                moved = _after_previous(text, tok, span)
                if moved != span:
                    help_ = "add `;` here: statements and items end with `;`"
                    return Diagnostic("E0001", f"expected `;`, found {found}", moved, help=help_)
        return Diagnostic(
            "E0001",
            f"expected {_expected(expected)}, found {found}",
            span,
            help=_hint(expected, tok, text),
        )
    if isinstance(error, UnexpectedCharacters):
        ch = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        if ch == '"':
            return Diagnostic("E0002", "unterminated string", span, help=_UNTERMINATED)
        return Diagnostic("E0002", f"unexpected character `{ch}`", span, help=_CHAR_HINTS.get(ch))
    if isinstance(error, UnexpectedEOF):
        line, col = _end_of(text)
        return Diagnostic(
            "E0001",
            f"unexpected end of file, expected {_expected(error.expected)}",
            Span(path, line, col, line, col + 1),
        )
    raise error


# `elif c {`, `elsif`, `elseif`: a name, then the condition where `;` was due
_ELSE_IF = re.compile(r"}\s*(elif|elsif|elseif)\b[^;{}\n]*\Z")


def _else_if(word: re.Match, text: str, path: str) -> Diagnostic:
    at = word.start(1)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    span = Span(path, line, col, line, col + len(word.group(1)))
    return Diagnostic("E0001", f"`{word.group(1)}` is not a keyword", span, help="write `else if`")


_UNTERMINATED = "a string ends on the line it starts on; write a line break as `\\n`"
_CHAR_HINTS = {
    "'": 'strings are written in double quotes: "…"',
    "&": "logical and is `&&`",
    "|": "logical or is `||`",
    "#": "comments start with `//`",
}


def _hint(expected, tok, text: str) -> str | None:
    if _literal_in_condition(tok, text):
        return "a struct or map literal in a condition needs parentheses: `if x == (P { a: 1 }) {`"
    if tok.type == "EQ" and _last_keyword(text, tok) in ("if", "while"):
        return "`=` assigns; compare with `==`"
    if tok.type == "LBRACE" and _STMT_START <= set(expected):
        return "a statement cannot start with `{`: put a map literal in parentheses"
    if "SEMICOLON" in expected:
        return "statements and items end with `;`"
    if "NAME" in expected and tok.type != "NAME" and str(tok).isidentifier():
        return f"`{tok}` is a keyword; it cannot be used as a name"
    if set(expected) == {"STRING"} and _last_keyword(text, tok) == "import":
        return 'the module is named by a string: `import "vendor/dna" as dna;`'
    if tok.type == "LET" and _ITEM_START <= set(expected):
        return "`let` belongs inside a `fn`; a value for the whole module is a `const`"
    if tok.type == "RBRACE" and _ITEM_START <= set(expected):
        return "this `}` has no `{` to close"
    if tok.type == "SEMICOLON" and set(expected) == {"LBRACE"} and _last_keyword(text, tok) == "fn":
        return "a `fn` needs a body `{ … }`; a function the host provides is a `host fn`"
    return None


def _literal_in_condition(tok, text: str) -> bool:
    """`if x == P { a: 1 } {` stops at the `:`; `if x == { … }` at the `{`."""
    if tok.type not in ("COLON", "LBRACE") or _last_keyword(text, tok) not in (
        "if",
        "while",
        "for",
    ):
        return False
    if tok.type == "COLON":
        return True
    since = re.split(r"\b(?:if|while|for)\b", text[: tok.start_pos])[-1]
    since = since.rstrip()
    return since.endswith(" in") or bool(since) and since[-1] in "=<>!&|+-*/%(,"


_SIGNIFICANT = re.compile(r'"(?:\\.|[^"\\\n])*"?|//[^\n]*|\S')


def _after_previous(text: str, tok, span: Span) -> Span:
    """A missing `;` is shown right after the token it should follow, when
    that token ends an earlier line (as rustc does)."""
    end = None
    for m in _SIGNIFICANT.finditer(text, 0, tok.start_pos):
        if not m.group().startswith("//"):
            end = m.end()
    if end is None:
        return span
    line = text.count("\n", 0, end) + 1
    if line >= tok.line:
        return span
    col = end - (text.rfind("\n", 0, end) + 1) + 1
    return Span(span.path, line, col, line, col + 1)


def _last_keyword(text: str, tok) -> str | None:
    words = re.findall(r"\b(fn|struct|type|if|while|for|else|import)\b", text[: tok.start_pos])
    return words[-1] if words else None


_OPEN = {"(": ")", "[": "]", "{": "}"}
_BRACKETS = re.compile(r'//[^\n]*|"(?:\\.|[^"\\\n])*"?|[()\[\]{}]')


def _unclosed(text: str, path: str) -> Diagnostic | None:
    """At the end of the file: the innermost bracket never closed, if any."""
    stack: list[int] = []
    for m in _BRACKETS.finditer(text):
        ch = m.group()
        if ch in _OPEN:
            stack.append(m.start())
        elif ch in _OPEN.values() and stack and _OPEN[text[stack[-1]]] == ch:
            stack.pop()
    if not stack:
        return None
    at = stack[-1]
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    opener = text[at]
    return Diagnostic(
        "E0001",
        f"this `{opener}` is never closed",
        Span(path, line, col, line, col + 1),
        help=f"the file ends before its `{_OPEN[opener]}`",
    )


def _end_of(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1
