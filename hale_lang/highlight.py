"""Colour for Hale source: a Pygments lexer, and terminal colouring with it.

The lexer is a Pygments `RegexLexer`, so everything that speaks Pygments
(`pygmentize -l hale`, rich's `Syntax`, Sphinx) can colour Hale; it is
registered under the `pygments.lexers` entry point in pyproject.toml. It
colours by what a token spells, never by what it means (that is the
language server's): the keywords are the grammar's (a test checks they
agree), the builtin functions are the prelude's free natives, a name before
`::` is a module alias, and a name after `fn`, `struct` or `type` is being
declared. A string escape Hale would refuse, and a character outside the
language, are `Error` tokens; nothing a parse accepts is.

`colour_line` colours one source line for a terminal (ANSI, 16 colours, as
rustc does); callers decide whether colour is wanted (`wants_colour`: a
TTY, and no `NO_COLOR`).
"""

from __future__ import annotations

import os
from typing import IO, ClassVar

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from hale_lang.stdlib.prelude import NATIVES

NAMESPACE = ("import", "as")
DECLARATIONS = ("const", "let", "host", "fn", "struct", "type")
CONTROL = ("if", "else", "while", "for", "in", "break", "continue", "return")
CONSTANTS = ("true", "false")
KEYWORDS = frozenset(NAMESPACE + DECLARATIONS + CONTROL + CONSTANTS)
TYPES = ("Int", "String", "Bool", "Void", "Json", "List", "Map")
BUILTINS = tuple(sorted({f.name for f in NATIVES if "." not in f.name}))

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_END = r"(?![A-Za-z0-9_])"


class HaleLexer(RegexLexer):
    """Pygments lexer for Hale (`.hl`)."""

    name = "Hale"
    aliases: ClassVar[list[str]] = ["hale"]
    filenames: ClassVar[list[str]] = ["*.hl"]
    mimetypes: ClassVar[list[str]] = ["text/x-hale"]

    tokens: ClassVar[dict] = {
        "root": [
            (r"\s+", Whitespace),
            (r"//[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"[0-9][0-9_]*", Number.Integer),
            (rf"(fn)(\s+)({_IDENT})", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (
                rf"(struct|type)(\s+)({_IDENT})",
                bygroups(Keyword.Declaration, Whitespace, Name.Class),
            ),
            (words(NAMESPACE, suffix=_END), Keyword.Namespace),
            (words(DECLARATIONS, suffix=_END), Keyword.Declaration),
            (words(CONTROL, suffix=_END), Keyword),
            (words(CONSTANTS, suffix=_END), Keyword.Constant),
            (words(TYPES, suffix=_END), Keyword.Type),
            (words(BUILTINS, suffix=rf"{_END}(?=\s*\()"), Name.Builtin),
            (rf"({_IDENT})(\s*)(::)", bygroups(Name.Namespace, Whitespace, Operator)),
            (rf"{_IDENT}(?=\s*\()", Name.Function),
            (_IDENT, Name),
            (r"->|::|==|!=|<=|>=|&&|\|\||[-+*/%]=?|[=<>!]", Operator),
            (r"[{}()\[\],;:.]", Punctuation),
        ],
        "string": [
            (r'\\(?:[ntr\\"0]|u\{[0-9A-Fa-f]{1,6}\})', String.Escape),
            (r'[^"\\\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"\\.", Error),  # an escape Hale refuses
            (r"\n", Error, "#pop"),  # a string left open at the end of its line
        ],
    }


# Pygments' terminal palette, as rustc and most tools colour source.
_FORMATTER = None


def colour_line(text: str) -> str:
    """One line of Hale source with ANSI colours (no trailing newline)."""
    global _FORMATTER
    from pygments import highlight
    from pygments.formatters.terminal import TerminalFormatter

    if _FORMATTER is None:
        _FORMATTER = TerminalFormatter()
    return highlight(text, HaleLexer(stripnl=False, ensurenl=False), _FORMATTER).rstrip("\n")


def wants_colour(stream: IO[str]) -> bool:
    """Colour only a terminal, and never under `NO_COLOR` (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
