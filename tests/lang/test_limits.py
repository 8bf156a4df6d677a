"""Every nesting limit, walked at its edge: at the limit a program checks,
compiles, runs and formats; one past it gets the designed diagnostic, never
a Python error. Also the issue's cases: long chains, deep `if`s and loops,
deep recursion, and `hale fmt` on the project's own too_deep.hl fixture.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_lang.build import build, compile_entries
from hale_lang.diagnostics import HaleError
from hale_lang.formatter import format_source, tree_shape
from hale_lang.limits import (
    MAX_BLOCK_DEPTH,
    MAX_CALL_DEPTH,
    MAX_EXPR_DEPTH,
    MAX_LOOP_DEPTH,
    MAX_TYPE_DEPTH,
)
from hale_lang.parser import parse
from hale_runtime.cli import hale

FIXTURES = Path(__file__).parent / "fixtures"


def codes(tmp_path: Path, source: str) -> list[str]:
    (tmp_path / "m.hl").write_text(source)
    return [d.code for d in compile_entries(tmp_path, ["m.hl"], use_cache=False).errors]


def runs(tmp_path: Path, source: str, fn: str = "main", *args):
    (tmp_path / "m.hl").write_text(source)
    result = build(tmp_path, ["m.hl"], use_cache=False).call("m.hl", fn, *args)
    formatted = format_source(source, "m.hl")
    assert tree_shape(parse(formatted, "m.hl")) == tree_shape(parse(source, "m.hl"))
    assert format_source(formatted, "m.hl") == formatted
    return result


def _index(d: int) -> str:
    k, extra = (d - 1) // 2, (d - 1) % 2
    return "-" * extra + "[" * k + "x" + "]" * k + "[0]" * k


# Each builds an expression nesting exactly `d` levels deep around `x`,
# with the type it has.
EXPRESSIONS = {
    "unary": (lambda d: "-" * (d - 1) + "x", "Int"),
    "calls": (lambda d: "id(" * (d - 1) + "x" + ")" * (d - 1), "Int"),
    "index": (_index, "Int"),
    "products": (lambda d: "(x * " * (d - 1) + "1" + ")" * (d - 1), "Int"),
    "concatenations": (lambda d: '("a" + ' * (d - 2) + "to_string(x)" + ")" * (d - 2), "String"),
    "methods": (lambda d: "to_string(x)" + ".trim()" * (d - 2), "String"),
}
HEADER = "fn id(x: Int) -> Int { return x; }\n"


@pytest.mark.parametrize("kind", sorted(EXPRESSIONS))
def test_expression_depth_at_its_edge(tmp_path: Path, kind: str) -> None:
    build_expr, ty = EXPRESSIONS[kind]
    at = HEADER + f"fn main(x: Int) -> {ty} {{ return {build_expr(MAX_EXPR_DEPTH)}; }}\n"
    assert runs(tmp_path, at, "main", 3) is not None
    over = HEADER + f"fn main(x: Int) -> {ty} {{ return {build_expr(MAX_EXPR_DEPTH + 1)}; }}\n"
    assert codes(tmp_path, over) == ["E0319"]


def test_a_struct_literal_nests_to_the_edge(tmp_path: Path) -> None:
    header = "struct N { v: Int, next: List<N> }\n"

    def nested(d: int) -> str:  # each N and each list is a level
        k = d // 2
        return "N { v: 1, next: [" * (k - 1) + "N { v: 1, next: [] }" + "] }" * (k - 1)

    at = header + f"fn main() -> Int {{ let n = {nested(MAX_EXPR_DEPTH)}; return n.v; }}\n"
    assert runs(tmp_path, at) == 1
    over = header + f"fn main() -> Int {{ let n = {nested(MAX_EXPR_DEPTH + 2)}; return n.v; }}\n"
    assert codes(tmp_path, over) == ["E0319"]


def nested_ifs(depth: int) -> str:
    lines = ["fn main(x: Int) -> Int {"]
    lines += ["    " * (i + 1) + f"if x > {i} {{" for i in range(depth)]
    lines.append("    " * (depth + 1) + "return x;")
    lines += ["    " * (i + 1) + "}" for i in reversed(range(depth))]
    return "\n".join([*lines, "    return 0;", "}", ""])


def nested_loops(depth: int) -> str:
    lines = ["fn main(n: Int) -> Int {", "    let total = 0;"]
    lines += ["    " * (i + 1) + f"for i{i} in range(0, n) {{" for i in range(depth)]
    lines.append("    " * (depth + 1) + "total += 1;")
    lines += ["    " * (i + 1) + "}" for i in reversed(range(depth))]
    return "\n".join([*lines, "    return total;", "}", ""])


def test_block_depth_at_its_edge(tmp_path: Path) -> None:
    assert runs(tmp_path, nested_ifs(MAX_BLOCK_DEPTH), "main", 100) == 100
    assert codes(tmp_path, nested_ifs(MAX_BLOCK_DEPTH + 1)) == ["E0320"]
    assert codes(tmp_path, nested_ifs(99)) == ["E0320"]  # the issue's case


def test_loop_depth_at_its_edge(tmp_path: Path) -> None:
    assert runs(tmp_path, nested_loops(MAX_LOOP_DEPTH), "main", 1) == 1
    assert codes(tmp_path, nested_loops(MAX_LOOP_DEPTH + 1)) == ["E0321"]
    assert codes(tmp_path, nested_loops(21)) == ["E0321"]  # the issue's case


def test_type_depth_at_its_edge(tmp_path: Path) -> None:
    def typed(d: int) -> str:
        t = "List<" * (d - 1) + "Int" + ">" * (d - 1)
        return f"fn main(x: {t}) -> Int {{ return len(x); }}\n"

    assert codes(tmp_path, typed(MAX_TYPE_DEPTH)) == []
    assert codes(tmp_path, typed(MAX_TYPE_DEPTH + 1)) == ["E0322"]
    assert codes(tmp_path, typed(5000)) == ["E0322"]  # past Python's own recursion


def test_call_depth_at_its_edge(tmp_path: Path) -> None:
    source = (
        "fn down(n: Int) -> Int {\n    if n <= 1 { return 1; }\n    return down(n - 1) + 1;\n}\n"
    )
    assert runs(tmp_path, source, "down", MAX_CALL_DEPTH) == MAX_CALL_DEPTH
    for n in (MAX_CALL_DEPTH + 1, 100_000):
        with pytest.raises(HaleError) as info:
            runs(tmp_path, source, "down", n)
        (d,) = info.value.diagnostics
        assert d.code == "E0410" and f"{MAX_CALL_DEPTH:,}" in d.message
        assert len(d.trace) == 10  # the outermost and innermost calls


@pytest.mark.parametrize("terms", [201, 500, 10_000])
@pytest.mark.parametrize(
    ("op", "value", "ty", "want"),
    [
        ("+", "1", "Int", lambda t: t),
        ("+", '"a"', "String", lambda t: "a" * t),
        ("*", "x", "Int", lambda t: 1),
        ("&&", "true", "Bool", lambda t: True),
        ("-", "1", "Int", lambda t: 2 - t),
    ],
)
def test_long_chains_check_compile_run_and_format(tmp_path: Path, terms, op, value, ty, want):
    chain = f" {op} ".join([value] * terms)
    source = f"fn main(x: Int) -> {ty} {{ return {chain}; }}\n"
    assert runs(tmp_path, source, "main", 1) == want(terms)


def test_deep_values_compare(tmp_path: Path) -> None:
    source = (
        "struct N { next: List<N> }\n"
        "fn chain(n: Int) -> N {\n"
        "    let x = N { next: [] };\n"
        "    for i in range(0, n) { x = N { next: [x] }; }\n"
        "    return x;\n"
        "}\n"
        "fn main(n: Int) -> Bool { return chain(n) == chain(n) && chain(n) != chain(n + 1); }\n"
    )
    assert runs(tmp_path, source, "main", 5_000) is True


@pytest.mark.parametrize("fixture", ["check/too_deep.hl", "check/blocks_too_deep.hl"])
def test_hale_fmt_handles_the_deep_fixtures(tmp_path: Path, fixture: str) -> None:
    file = tmp_path / "f.hl"
    file.write_text((FIXTURES / fixture).read_text())
    first = CliRunner().invoke(hale, ["fmt", str(file)], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(hale, ["fmt", "--check", str(file)], catch_exceptions=False)
    assert again.exit_code == 0, again.output


def test_hale_fmt_formats_150_nested_ifs(tmp_path: Path) -> None:
    file = tmp_path / "f.hl"
    file.write_text(nested_ifs(150).replace("    ", "  "))
    r = CliRunner().invoke(hale, ["fmt", str(file)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert file.read_text() == nested_ifs(150)
