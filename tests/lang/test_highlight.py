"""Hale's Pygments lexer: it covers every file hale ships, agrees with the
grammar, is found by Pygments through its entry point, and colours
diagnostics on a terminal only (never under NO_COLOR, never into a pipe)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Keyword, Name, String

from hale_lang.diagnostics import Diagnostic, SourceMap, Span, render
from hale_lang.highlight import KEYWORDS, HaleLexer
from hale_lang.resources import grammar_file

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    p
    for folder in ("vendor", "examples", "hale_lang/stdlib")
    for p in (ROOT / folder).rglob("*.hl")
)
HALE = Path(sys.executable).with_name("hale")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def tokens(text: str) -> list[tuple]:
    return list(HaleLexer().get_tokens(text))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_token_of_a_shipped_file_has_a_type(path: Path) -> None:
    text = path.read_text()
    toks = tokens(text)
    assert [(t, v) for t, v in toks if t in Error] == []
    assert "".join(v for _, v in toks) == text


def test_the_keywords_are_the_grammars() -> None:
    literals = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar_file().read_text()))
    assert literals == KEYWORDS


def test_what_hale_refuses_is_an_error_token() -> None:
    toks = tokens('let s = "a\\q";\nlet t = 1 @ 2;\n')
    errors = [v for t, v in toks if t in Error]
    assert errors == ["\\q", "@"]


def test_names_are_told_apart_by_where_they_stand() -> None:
    toks = [(t, v) for t, v in tokens('fn f(x: dna::Clock) { len("\\n"); g(); }') if v.strip()]
    assert (Name.Function, "f") in toks and (Name.Namespace, "dna") in toks
    assert (Name.Builtin, "len") in toks and (Name.Function, "g") in toks
    assert (String.Escape, "\\n") in toks and (Keyword.Declaration, "fn") in toks


def test_pygments_finds_the_lexer_through_its_entry_point() -> None:
    assert type(get_lexer_by_name("hale")) is HaleLexer
    done = subprocess.run(
        [sys.executable, "-m", "pygments", "-l", "hale", "-f", "raw"],
        input="let x = 1;\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Token.Keyword.Declaration\t'let'" in done.stdout


def test_a_coloured_diagnostic_reads_as_the_plain_one() -> None:
    text = 'fn f() -> Int {\n    return lenght("x");\n}\n'
    d = Diagnostic("E0201", "undefined name `lenght`", Span("a.hl", 2, 12, 2, 18), "did you mean")
    sources = SourceMap({"a.hl": text})
    coloured = render(d, sources, colour=True)
    assert coloured != render(d, sources)
    assert ANSI.sub("", coloured) == render(d, sources)
    assert "\x1b[1;31m^^^^^^" in coloured  # the carets in the error's colour


def _check_on(tmp_path: Path, tty: bool, **env: str) -> str:
    """`hale check` of a bad file, its stderr a terminal or a pipe."""
    bad = tmp_path / "bad.hl"
    bad.write_text("fn main() -> Int {\n    return lenght(1);\n}\n")
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env
    if not tty:
        done = subprocess.run([HALE, "check", bad], capture_output=True, text=True, env=environ)
        return done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen([HALE, "check", bad], stderr=follower, stdout=follower, env=environ):
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            out += chunk
    os.close(leader)
    return out.decode()


def test_hale_check_colours_a_terminal_only(tmp_path: Path) -> None:
    on_tty = _check_on(tmp_path, tty=True)
    assert "undefined name `lenght`" in on_tty and ANSI.search(on_tty)
    assert not ANSI.search(_check_on(tmp_path, tty=True, NO_COLOR="1"))
    piped = _check_on(tmp_path, tty=False)
    assert "undefined name `lenght`" in piped and not ANSI.search(piped)
