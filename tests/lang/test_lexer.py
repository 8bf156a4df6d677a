"""The lexer's positions, against the text itself: it tracks lines as it
goes (counting them only when a token starts past a newline), so every
token's line, column and end are checked here against a count made from its
offset alone, on arbitrary text, with errors recovered or raised."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedCharacters

from hale_lang.parser import _driver

CHARS = 'abfnlet_09 \n\r\t{}()=+-/;:,.<>!&|"\\#@`'
WORDS = st.sampled_from(["fn", "let", "x1", "//c", '"s"', '"u', "\n", "  ", "\r\n", "#", "é"])
TEXTS = st.one_of(
    st.text(CHARS), st.lists(st.one_of(WORDS, st.text(CHARS, max_size=4))).map("".join)
)


def where(text: str, offset: int) -> tuple[int, int]:
    """Line and column of `offset`, counted from the start of the text."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_every_token_is_where_its_offset_says(text: str) -> None:
    _, lexer = _driver()
    tokens = list(lexer.lex(text, recovering=True))
    for tok in tokens:
        assert text[tok.start_pos : tok.end_pos] == tok
        assert (tok.line, tok.column) == where(text, tok.start_pos)
        assert (tok.end_line, tok.end_column) == (tok.line, tok.column + len(tok))
    starts = [t.start_pos for t in tokens]
    assert starts == sorted(starts)
    try:
        strict = list(lexer.lex(text))
    except UnexpectedCharacters as e:
        assert (e.line, e.column) == where(text, e.pos_in_stream)
        assert any(t.type == "$BAD" and t.start_pos == e.pos_in_stream for t in tokens)
    else:
        assert strict == tokens and all(t.type != "$BAD" for t in tokens)


@pytest.mark.parametrize("text", ["", "\n\n", "  \n\t", "// only a comment\n"])
def test_a_text_without_tokens_ends_at_the_start(text: str) -> None:
    _, lexer = _driver()
    (end,) = lexer.lex(text, end="$END")
    assert (end.type, end.line, end.column) == ("$END", 1, 1)
