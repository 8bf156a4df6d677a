"""Every ```hale example in the docs checks: each is written to a genome of
its own (with the vendored `vendor/dna` beside it) and built; no error may
come back. Warnings are allowed (an example may import what it only
mentions). The docs searched are README.md and every docs/**/*.md, so an
example added to any page is checked without touching this file.

The diagnostic docs/language.md shows is the one hale prints: its first
example, with the misspelling the diagnostic names, gives that text exactly.
And the examples written inline in docs/language.md hold: each expression in
its Expressions table parses as an expression, each arithmetic fact it states
(`-7 / 2 == -4`) is true when run, and the numbers it calls malformed are.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hale_lang import nodes as n
from hale_lang.build import build, compile_entries
from hale_lang.diagnostics import HaleError, render_all
from hale_lang.parser import parse

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
EXAMPLES = [
    (f"{doc.relative_to(REPO)}#{i}", body)
    for doc in DOCS
    for i, body in enumerate(b for lang, b in FENCE.findall(doc.read_text()) if lang == "hale")
]
LANGUAGE = (REPO / "docs" / "language.md").read_text()


def test_the_docs_have_examples() -> None:
    pages = {name.split("#")[0] for name, _ in EXAMPLES}
    assert sum(name.startswith("docs/language.md#") for name, _ in EXAMPLES) >= 3
    assert "docs/catalog.md" in pages


def check(tmp_path: Path, text: str, path: str = "example.hl"):
    shutil.copytree(REPO / "vendor" / "dna", tmp_path / "vendor" / "dna")
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text)
    return compile_entries(tmp_path, [path], use_cache=False)


@pytest.mark.parametrize("name", [name for name, _ in EXAMPLES])
def test_example_checks(name: str, tmp_path: Path) -> None:
    compiled = check(tmp_path, dict(EXAMPLES)[name])
    assert compiled.errors == [], render_all(compiled.diagnostics, compiled.sources)


def test_the_diagnostic_shown_is_the_one_printed(tmp_path: Path) -> None:
    """The Diagnostics section quotes an error in the first example."""
    section = LANGUAGE.split("## Diagnostics", 1)[1]
    shown = re.search(r"^```\n(error\[.*?)^```", section, re.S | re.M).group(1).rstrip("\n")
    first = EXAMPLES[[n for n, _ in EXAMPLES].index("docs/language.md#0")][1]
    assert "len(d)" in first
    compiled = check(tmp_path, first.replace("len(d)", "lenght(d)"), "dna/org/own_workflows.hl")
    assert render_all(compiled.errors, compiled.sources) == shown


# --- the examples written inline ------------------------------------------------------


def section(title: str) -> str:
    return LANGUAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


EXPRESSIONS = [  # the first table's example column, without its notes on types
    code
    for row in section("Expressions").strip().split("\n\n")[0].splitlines()[2:]
    for code in re.findall(r"`([^`]+)`", row.split("|")[2].split(" (")[0])
    if "…" not in code
]
ARITHMETIC = sorted(set(re.findall(r"`(-?\d+ [-+*/%] -?\d+ == -?\d+)`", LANGUAGE)))


def test_each_expression_in_the_table_parses_as_one() -> None:
    assert len(EXPRESSIONS) >= 15
    for code in EXPRESSIONS:
        const = parse(f"const X = {code};", "x.hl").items[0]
        assert isinstance(const, n.Const), code


def test_the_arithmetic_the_doc_states_holds(tmp_path: Path) -> None:
    assert len(ARITHMETIC) >= 3  # `/` and `%` flooring
    body = "".join(f'    if !({claim}) {{ return "{claim}"; }}\n' for claim in ARITHMETIC)
    text = f'fn main() -> String {{\n{body}    return "";\n}}\n'
    (tmp_path / "main.hl").write_text(text)
    assert build(tmp_path, ["main.hl"], use_cache=False).call("main.hl", "main") == ""


@pytest.mark.parametrize("number", ["1_", "1__0"])
def test_the_numbers_the_doc_refuses_are_refused(number: str) -> None:
    assert f"`{number}`" in section("Lexical structure")
    with pytest.raises(HaleError) as e:
        parse(f"const X = {number};", "x.hl")
    assert [d.code for d in e.value.diagnostics] == ["E0004"]
