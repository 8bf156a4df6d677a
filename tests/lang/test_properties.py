"""Property tests of the parser and the formatter (hypothesis).

Three sources of input: arbitrary text; valid programs mutated token by
token (a token deleted, duplicated, swapped or replaced); and programs drawn
from a generator that follows the grammar with random spacing, redundant
parentheses, trailing commas and comments anywhere whitespace may go.
Whatever the input, `parse` and `format_source` raise nothing but HaleError;
whatever parses formats idempotently, to a program with the same tree and
the same comments.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_lang.diagnostics import HaleError
from hale_lang.formatter import format_source, tree_shape
from hale_lang.parser import parse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = [p.read_text() for p in sorted((Path(__file__).parent / "fixtures" / "fmt").glob("*.hl"))]
SEEDS = [s for s in SEEDS if s.strip()]


def check_faithful(text: str) -> None:
    """If `text` parses: formatting is idempotent and keeps tree and comments."""
    try:
        before = parse(text, "p.hl")
    except HaleError:
        return
    out = format_source(text, "p.hl")
    after = parse(out, "p.hl")
    assert tree_shape(after) == tree_shape(before)
    assert Counter(c.text for c in after.comments) == Counter(
        c.text.rstrip() for c in before.comments
    )
    assert format_source(out, "p.hl") == out


def only_hale_errors(text: str) -> None:
    for step in (lambda: parse(text, "p.hl"), lambda: format_source(text, "p.hl")):
        try:
            step()
        except HaleError as e:
            assert e.diagnostics and all(d.code.startswith("E") for d in e.diagnostics)


# --- arbitrary text --------------------------------------------------------------

HALE_CHARS = 'abcdefilnorstuwxyz_019 \n\t{}()[];:,.<>=!+-*/%&|"\\'
KEYWORDS = ["fn", "let", "if", "else", "while", "for", "in", "return", "struct", "const"]
KEYWORDS += ["import", "as", "host", "type", "true", "false", "break", "continue", "//"]


@SETTINGS
@given(st.one_of(st.text(), st.text(alphabet=HALE_CHARS)))
def test_random_text_raises_only_hale_errors(text: str):
    only_hale_errors(text)


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(KEYWORDS), st.text(HALE_CHARS, max_size=3))))
def test_random_keyword_soup_raises_only_hale_errors(words: list[str]):
    only_hale_errors(" ".join(words))


# --- mutated valid programs --------------------------------------------------------

_TOKEN = re.compile(r'//[^\n]*|"(?:\\.|[^"\\\n])*"|\w+|::|->|&&|\|\||[-+*/%=!<>]=?|\S')


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _join(tokens: list[str]) -> str:
    return " ".join(t + "\n" if t.startswith("//") else t for t in tokens)


@st.composite
def mutated(draw) -> str:
    tokens = _tokens(draw(st.sampled_from(SEEDS)))
    vocabulary = sorted(set(tokens))
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        j = draw(st.integers(0, len(tokens) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "replace"]))
        if op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        elif op == "swap":
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            tokens[i] = draw(st.sampled_from(vocabulary))
    return _join(tokens)


@SETTINGS
@given(mutated())
def test_mutated_programs_raise_only_hale_errors(text: str):
    only_hale_errors(text)
    check_faithful(text)


def test_every_seed_survives_token_joining():
    for seed in SEEDS:
        joined = _join(_tokens(seed))
        assert tree_shape(parse(joined, "p.hl")) == tree_shape(parse(seed, "p.hl"))


# --- generated programs -----------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "xs", "total", "k", "m"])
FIELDS = st.sampled_from(["start", "end", "name"])
TYPES = st.sampled_from(["Int", "String", "Bool", "Json", "List<Int>", "Map<String, List<Int>>"])
TYPES = st.one_of(TYPES, st.just("dna::WorkRequest"))
BINOPS = st.sampled_from("|| && == != < <= > >= + - * / %".split())
COMMENT_TEXT = st.text(st.characters(blacklist_characters="\n"), max_size=12)
WS = st.one_of(
    st.sampled_from([" ", " ", " ", "\n", "\n\n\n", "  \t", "\r\n"]),
    COMMENT_TEXT.map(lambda t: f" //{t}\n"),
)
STRING_PIECES = st.sampled_from(["a", " ", "é", "\\n", "\\t", '\\"', "\\\\", "\\0", "\\u{1F600}"])


def _int(draw) -> str:
    return draw(st.sampled_from(["0", "1", "42", "1_000", "007"]))


def _string(draw) -> str:
    return '"' + "".join(draw(st.lists(STRING_PIECES, max_size=4))) + '"'


def _sep(draw, items: list[str], open_: str, close: str) -> str:
    ws = draw(WS)
    trailing = "," if items and draw(st.booleans()) else ""
    return open_ + ws + f",{ws}".join(items) + trailing + ws + close


@st.composite
def exprs(draw, depth: int = 3, cond: bool = False, stmt: bool = False) -> str:
    """A valid expression; with `cond`, struct and map literals outside any
    bracket are parenthesized, as the grammar asks after `if`/`while`/`in`;
    with `stmt`, map literals (a statement never starts with `{`)."""

    def sub(keep: bool = True):  # False inside brackets, where the restrictions end
        return exprs(depth - 1, cond, stmt) if keep else exprs(depth - 1)

    kind = draw(st.integers(0, 13 if depth > 0 else 5))
    ws = draw(WS)
    if kind == 0:
        return _int(draw)
    if kind == 1:
        return _string(draw)
    if kind == 2:
        return draw(st.sampled_from(["true", "false"]))
    if kind in (3, 4):
        return draw(NAMES)
    if kind == 5:
        return "dna::" + draw(NAMES)
    if kind == 6:
        return f"{draw(sub())}{ws}{draw(BINOPS)}{ws}{draw(sub())}"
    if kind == 7:
        return draw(st.sampled_from(["-", "!"])) + draw(sub())
    if kind == 8:
        return f"({ws}{draw(sub(False))}{ws})"
    if kind == 9:
        args = draw(st.lists(sub(False), max_size=3))
        head = draw(st.sampled_from(["f", "dna::f", "len"]))
        return head + _sep(draw, args, "(", ")")
    if kind == 10:
        args = draw(st.lists(sub(False), max_size=2))
        return f"{draw(sub())}.{draw(FIELDS)}" + _sep(draw, args, "(", ")")
    if kind == 11:
        obj = draw(sub())
        return f"{obj}.{draw(FIELDS)}" if draw(st.booleans()) else f"{obj}[{draw(sub(False))}]"
    if kind == 12:
        return _sep(draw, draw(st.lists(sub(False), max_size=3)), "[", "]")
    fields = [f"{draw(FIELDS)}:{ws}{draw(sub(False))}" for _ in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        lit = draw(st.sampled_from(["W", "dna::WorkRequest"])) + " " + _sep(draw, fields, "{", "}")
    else:
        entries = [f"{draw(sub(False))}: {draw(sub(False))}" for _ in range(len(fields))]
        lit = _sep(draw, entries, "{", "}")
        cond = cond or stmt
    return f"({lit})" if cond else lit


@st.composite
def blocks(draw, depth: int) -> str:
    stmts = draw(st.lists(stmts_(depth), max_size=4))
    ws = draw(WS)
    return "{" + ws + ws.join(stmts) + ws + "}"


@st.composite
def stmts_(draw, depth: int) -> str:
    ws, e = draw(WS), exprs(2)
    kind = draw(st.integers(0, 8 if depth > 0 else 5))
    if kind == 0:
        ty = f":{ws}{draw(TYPES)}" if draw(st.booleans()) else ""
        return f"let {draw(NAMES)}{ty}{ws}={ws}{draw(e)};"
    if kind == 1:
        op = draw(st.sampled_from(["=", "+=", "-=", "*=", "/=", "%="]))
        return f"{draw(exprs(2, stmt=True))}{ws}{op}{ws}{draw(e)};"
    if kind == 2:
        return draw(st.sampled_from(["break;", "continue;", "return;"]))
    if kind == 3:
        return f"return {draw(e)};"
    if kind in (4, 5):
        return f"{draw(exprs(2, stmt=True))}{ws};"
    cond = draw(exprs(2, cond=True))
    if kind == 6:
        return f"while {cond}{ws}{draw(blocks(depth - 1))}"
    if kind == 7:
        return f"for {draw(NAMES)} in {cond} {draw(blocks(depth - 1))}"
    text = f"if {cond} {draw(blocks(depth - 1))}"
    for _ in range(draw(st.integers(0, 2))):
        text += f"{ws}else if {draw(exprs(1, cond=True))} {draw(blocks(depth - 1))}"
    if draw(st.booleans()):
        text += f"{ws}else{ws}{draw(blocks(depth - 1))}"
    return text


@st.composite
def items(draw) -> str:
    ws, name = draw(WS), draw(st.sampled_from(["one", "two", "W"]))
    params = [f"{draw(NAMES)}: {draw(TYPES)}" for _ in range(draw(st.integers(0, 2)))]
    sig = name + _sep(draw, params, "(", ")")
    sig += f" ->{ws}{draw(TYPES)}" if draw(st.booleans()) else ""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return f'import{ws}"{draw(st.sampled_from(["vendor/dna", "std/strings"]))}" as {name};'
    if kind == 1:
        ty = f": {draw(TYPES)}" if draw(st.booleans()) else ""
        return f"const {name.upper()}{ty} = {draw(exprs(2))};"
    if kind == 2:
        return f"struct {name} " + _sep(draw, params, "{", "}")
    if kind == 3:
        return f"host fn {sig};"
    if kind == 4:
        methods = [f"fn {draw(NAMES)}(){ws};" for _ in range(draw(st.integers(0, 2)))]
        return f"host type {name} {{{ws}{ws.join(methods)}{ws}}}"
    return f"fn {sig} {draw(blocks(2))}"


@st.composite
def programs(draw) -> str:
    ws = draw(WS)
    return ws + ws.join(draw(st.lists(items(), max_size=4))) + draw(WS)


@SETTINGS
@given(programs())
def test_generated_programs_format_faithfully(text: str):
    parse(text, "p.hl")  # the generator only writes valid programs
    check_faithful(text)


@SETTINGS
@given(exprs(4), exprs(4, cond=True))
def test_expressions_keep_their_tree(text: str, cond: str):
    check_faithful(f"const X = {text};")
    check_faithful(f"fn f() {{ while {cond} {{}} }}")
