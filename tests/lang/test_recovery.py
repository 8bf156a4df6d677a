"""Syntax error recovery: one run reports every syntax error of a file, each
once, and still checks everything that parsed.

The fixtures under fixtures/recovery/ mark each expected diagnostic with a
trailing `//~ CODE` on the line it points at; the rendered output is pinned
in a snapshot. A hypothesis test strings together functions with one known
syntax error each, and valid ones between them: exactly those errors come
back, on their lines, and nothing else (no cascade, no checker noise).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hale_lang import nodes as n
from hale_lang.build import compile_entries
from hale_lang.diagnostics import SourceMap, render_all
from hale_lang.parser import parse_module
from hale_runtime.cli import hale

FIXTURES = Path(__file__).parent / "fixtures" / "recovery"
MARKER = re.compile(r"//~((?:\s+[EW]\d{4})+)\s*$")


def markers(texts: dict[str, str]) -> Counter:
    found: Counter = Counter()
    for path, text in texts.items():
        for lineno, line in enumerate(text.splitlines(), 1):
            m = MARKER.search(line)
            if m:
                found.update((path, lineno, code) for code in m.group(1).split())
    return found


def found(diags) -> Counter:
    return Counter((d.span.path, d.span.line, d.code) for d in diags)


def test_five_errors_in_one_file(snapshot) -> None:
    text = (FIXTURES / "five_errors.hl").read_text()
    module = parse_module(text, "five_errors.hl")
    assert len(module.errors) == 5
    assert found(module.errors) == markers({"five_errors.hl": text})
    assert render_all(module.errors, SourceMap({"five_errors.hl": text})) == snapshot


def test_items_an_error_touches_are_broken_and_the_others_kept() -> None:
    module = parse_module((FIXTURES / "five_errors.hl").read_text(), "five_errors.hl")
    kinds = [(type(i).__name__, i.name) for i in module.items]
    assert kinds == [
        ("BrokenItem", "Slot"),
        ("BrokenItem", "due"),
        ("BrokenItem", "label"),
        ("BrokenItem", "count"),
        ("FnDecl", "last"),
    ]


def test_errors_across_two_files_and_the_checker_still_runs(snapshot) -> None:
    root = FIXTURES / "two_files"
    compiled = compile_entries(root, ["a.hl", "b.hl"], use_cache=False)
    assert found(compiled.diagnostics) == markers(compiled.texts)
    assert compiled.artifacts is None
    assert render_all(compiled.diagnostics, compiled.sources) == snapshot


def test_a_broken_item_is_silent_where_it_is_used() -> None:
    """`b::broken` lost its body to a syntax error: calling it with any
    arguments reports nothing more (a.hl's only error is its own)."""
    compiled = compile_entries(FIXTURES / "two_files", ["a.hl"], use_cache=False)
    assert [(d.span.path, d.code) for d in compiled.diagnostics] == [
        ("b.hl", "E0001"),
        ("b.hl", "E0304"),
        ("a.hl", "E0304"),
    ]


# --- no cascades ---------------------------------------------------------------------

# (an item with syntax errors, the lines of those errors within it)
BROKEN = [
    ("fn f{i}() {{\n    let x = 1 +;\n}}\n", (2,)),
    ("fn f{i}() -> Int {{\n    return 1\n}}\n", (2,)),
    ("fn f{i}(x: Int) -> Bool {{\n    if x = 1 {{ return true; }}\n    return false;\n}}\n", (2,)),
    ("fn f{i}() {{\n    let s = 'a';\n}}\n", (2,)),
    ('fn f{i}() {{\n    let s = "abc;\n}}\n', (2,)),
    ("struct S{i} {{ a: Int b: Int }}\n", (1,)),
    ("fn f{i}() {{\n    g(1 2);\n}}\n", (2,)),
    ("const C{i} = ;\n", (1,)),
    (
        "fn f{i}(x: Int) -> Int {{\n    if x > 0 {{ return 1; }} elif x < 0 {{ return 2; }}\n}}\n",
        (2,),
    ),
    ("fn f{i}(x Int) {{ }}\n", (1,)),
    ("fn f{i}() {{\n    let x = (1 + 2;\n}}\n", (2,)),
    ('fn f{i}() {{\n    {{"a": 1}}.len();\n}}\n', (2,)),
    ("fn f{i}() {{\n    let n = 1__0;\n}}\n", (2,)),
    ("fn f{i}() {{\n    let x = 1\n    let y = 2 +;\n}}\n", (2, 3)),
    ("fn f{i}() {{\n    for x in [1] {{ }} else {{ }}\n}}\n", (2,)),
    ("fn f{i}() {{\n    let x = [1, 2;\n}}\n", (2,)),
    ('fn f{i}() {{\n    let m = {{"a": 1;\n}}\n', (2,)),
    ("host fn h{i}() -> Int\n", (1,)),
]
VALID = "fn ok{i}(x: Int) -> Int {{\n    return x + {i};\n}}\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(len(BROKEN))), st.booleans()), max_size=8))
def test_each_error_is_reported_once_and_nothing_else(plan) -> None:
    parts, expected, line = [], [], 1
    for i, (which, valid_after) in enumerate(plan):
        text, lines = BROKEN[which]
        parts.append(text.format(i=i))
        expected += [line + at - 1 for at in lines]
        line += text.count("\n")
        if valid_after:
            parts.append(VALID.format(i=i))
            line += VALID.count("\n")
    text = "".join(parts) + VALID.format(i=len(plan))
    module = parse_module(text, "p.hl")
    assert [d.span.line for d in module.errors] == expected, render_all(
        module.errors, SourceMap({"p.hl": text})
    )
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "p.hl").write_text(text)
        compiled = compile_entries(tmp, ["p.hl"], use_cache=False)
    assert [d.span.line for d in compiled.diagnostics] == expected
    valid = [i for i in module.items if isinstance(i, n.FnDecl)]
    assert all(f.name.startswith("ok") for f in valid)


def test_hale_check_of_two_files_shows_both_files_errors(snapshot, monkeypatch, tmp_path) -> None:
    """`hale check a.hl b.hl`: b.hl's syntax error and a.hl's type error, both."""
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "pair"
    shutil.copytree(FIXTURES / "pair", root)  # a genome of its own, not the repository
    monkeypatch.chdir(root)
    result = CliRunner().invoke(hale, ["check", "a.hl", "b.hl"])
    assert result.exit_code == 1
    texts = {p.name: p.read_text() for p in root.glob("*.hl")}
    heads = re.findall(r"^error\[(E\d+)\].*\n --> (\S+?):(\d+):\d+$", result.output, re.M)
    assert Counter((path, int(line), code) for code, path, line in heads) == markers(texts)
    assert result.output == snapshot
