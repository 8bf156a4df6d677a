"""The formatter: pinned layouts, its invariants, and `hale fmt`.

Each `fixtures/fmt/*.hl` is an input; its formatted text is pinned by a
syrupy snapshot. Every fixture is also checked for idempotence, for an
unchanged syntax tree, and for keeping each comment exactly once. A sweep
then inserts a comment at every token boundary of a program and checks the
same three things.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_lang.diagnostics import HaleError
from hale_lang.formatter import format_source, tree_shape
from hale_lang.parser import parse
from hale_runtime.cli import hale

FIXTURES = Path(__file__).parent / "fixtures" / "fmt"
CASES = sorted(FIXTURES.glob("*.hl"))


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # keeps CRLF as written


def _comments(text: str) -> Counter[str]:
    return Counter(c.text.rstrip() for c in parse(text, "x.hl").comments)


def assert_faithful(text: str) -> str:
    """Format `text` and check the three invariants; return the result."""
    out = format_source(text, "x.hl")
    assert format_source(out, "x.hl") == out, "not idempotent"
    assert tree_shape(parse(out, "x.hl")) == tree_shape(parse(text, "x.hl"))
    assert _comments(out) == _comments(text)
    return out


def test_there_are_enough_fixtures():
    assert len(CASES) >= 12


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_layout(case: Path, snapshot):
    assert format_source(_read(case), case.name) == snapshot


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_fixture_invariants(case: Path):
    out = assert_faithful(_read(case))
    assert out == "" or out.endswith("\n") and not out.endswith("\n\n")
    assert "\t" not in out and "\r" not in out
    assert all(line == line.rstrip() for line in out.split("\n"))


# --- comments at every position ------------------------------------------------

SWEEP = """import "vendor/dna" as dna;
const A: Int = 1;
struct S { a: Int, b: List<Int> }
host fn now() -> Int;
host type H { fn m(x: Int) -> Int; }
fn f(s: S, m: Map<String, Int>) -> Int {
    let x: Int = s.a + -m["k"] * 2;
    x += 1;
    if x > 0 { return x; } else if x < 0 { x = 0; } else { }
    while x < 3 && !(x == 2) { x = x + 1; break; }
    for k in m { continue; }
    g(S { a: 1, b: [1, 2] }, { "k": 1 });
    return (x);
}
"""
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|[A-Za-z_]\w*|\d+|::|->|&&|\|\||[+\-*/%=!<>]=?|\S')


def _boundaries(text: str) -> list[int]:
    """Offsets where a comment may go: before and after every token."""
    spots = {0, len(text)}
    for m in _TOKEN.finditer(text):
        spots |= {m.start(), m.end()}
    return sorted(spots)


@pytest.mark.parametrize("newline_before", [False, True], ids=["trailing", "own-line"])
def test_a_comment_anywhere_is_kept_once(newline_before: bool):
    for i, at in enumerate(_boundaries(SWEEP)):
        lead = "\n" if newline_before else " "
        text = f"{SWEEP[:at]}{lead}// c{i}\n{SWEEP[at:]}"
        out = assert_faithful(text)
        assert out.count(f"// c{i}\n") == 1, (at, out)


# --- particular rules ------------------------------------------------------------


def fmt(text: str) -> str:
    return assert_faithful(text)


def test_compound_assignment_is_kept_and_plain_one_too():
    assert fmt("fn f() { x += 1; x = x + 1; x[0] %= 2; }") == (
        "fn f() {\n    x += 1;\n    x = x + 1;\n    x[0] %= 2;\n}\n"
    )


def test_else_block_holding_an_if_is_not_merged_into_else_if():
    out = fmt("fn f() { if a { } else { if b { } } }")
    assert "} else {\n        if b {}\n    }" in out


def test_call_of_a_field_keeps_its_parentheses():
    assert "(a.b)(1);" in fmt("fn f() { (a.b)(1); }")
    assert "a.b(1);" in fmt("fn f() { a.b(1); }")


def test_struct_literal_in_a_condition_stays_parenthesized():
    assert "if x == (P { a: 1 }) {" in fmt("fn f() { if x == (P { a: 1, }) { } }")
    assert "let y = x == P { a: 1 };" in fmt("fn f() { let y = x == (P { a: 1 }); }")


def test_strings_are_escaped_canonically():
    out = fmt(r'const S = "\u{41}\u{9}\u{0}é\u{2028}";')
    assert out == 'const S = "A\\t\\0é\\u{2028}";\n'


def test_parentheses_follow_precedence_and_associativity():
    out = fmt("const X = ((a - (b - c)) - (d * (e + f))) == (g || h && (i || j));")
    assert out == "const X = a - (b - c) - d * (e + f) == (g || h && (i || j));\n"


def test_blank_lines_collapse_and_none_follow_an_opening_brace():
    out = fmt("fn f() {\n\n\n    a();\n\n\n\n    b();\n\n}\n\n\n\nfn g() {}\n")
    assert out == "fn f() {\n    a();\n\n    b();\n}\n\nfn g() {}\n"


def test_syntax_error_raises_hale_error():
    with pytest.raises(HaleError) as e:
        format_source("fn f( {", "x.hl")
    assert e.value.diagnostics[0].code == "E0001"


# --- hale fmt --------------------------------------------------------------------

MESSY = "fn f() { return 1; }\n"
TIDY = "fn f() {\n    return 1;\n}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dna" / "org").mkdir(parents=True)
    (tmp_path / "dna" / "org" / "main.hl").write_text(MESSY)
    (tmp_path / "dna" / "tidy.hl").write_text(TIDY)
    (tmp_path / "dna" / "notes.txt").write_text(MESSY)
    (tmp_path / "dna" / ".hidden").mkdir()
    (tmp_path / "dna" / ".hidden" / "skip.hl").write_text(MESSY)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(hale, ["fmt", *args])


def test_fmt_rewrites_and_lists_changed_files(project: Path):
    main = project / "dna" / "org" / "main.hl"
    main.chmod(0o640)
    result = run("dna")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "dna/org/main.hl\n", "")
    assert main.read_text() == TIDY
    assert main.stat().st_mode & 0o777 == 0o640
    assert (project / "dna" / ".hidden" / "skip.hl").read_text() == MESSY
    assert (project / "dna" / "notes.txt").read_text() == MESSY
    assert sorted(p.name for p in (project / "dna" / "org").iterdir()) == ["main.hl"]
    assert run("dna").stdout == ""


def test_fmt_check_writes_nothing_and_fails_on_changes(project: Path):
    result = run("--check", "dna", "dna/tidy.hl")
    assert (result.exit_code, result.stdout) == (1, "dna/org/main.hl\n")
    assert (project / "dna" / "org" / "main.hl").read_text() == MESSY
    clean = run("--check", "dna/tidy.hl")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_fmt_names_a_file_directly_whatever_its_extension(project: Path):
    result = run("dna/notes.txt")
    assert (result.exit_code, result.stdout) == (0, "dna/notes.txt\n")


def test_fmt_prints_syntax_errors_as_diagnostics(project: Path, snapshot):
    (project / "dna" / "bad.hl").write_text("fn f() {\n    let x = 1\n}\n")
    result = run("dna")
    assert result.exit_code == 1
    assert result.stdout == "dna/org/main.hl\n"  # the other files are still formatted
    assert "Traceback" not in result.output
    assert result.stderr == snapshot


def test_fmt_refuses_a_missing_path(project: Path):
    result = run("nowhere")
    assert result.exit_code == 2
