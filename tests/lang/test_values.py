"""Values are Hale's, not Python's: map keys print as Hale spells them,
`to_int` reads only an optional sign and ASCII digits, JSON input holds no
NaN or Infinity, and values nest at most 100 levels where they become text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hale_lang.build import build
from hale_lang.diagnostics import HaleError
from hale_lang.stdlib.plain import MAX_NESTING, JsonRefused, parse_json
from hale_runtime.cli import hale

SOURCE = """
fn keys() -> List<String> {
    let b: Map<Bool, Int> = { true: 1, false: 0 };
    let i: Map<Int, String> = { -3: "a" };
    return [json_str(b), to_string(b), format("{}", i), json_str(to_json(b))];
}
fn read(s: String) -> Int { return to_int(s); }
fn parse(s: String) -> Json { return json_parse(s); }
fn echo(j: Json) -> Json { return j; }
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    root = tmp_path_factory.mktemp("values")
    (root / "m.hl").write_text(SOURCE)
    return build(root, ["m.hl"], use_cache=False)


def test_bool_and_int_keys_print_as_hale_spells_them(program) -> None:
    assert program.call("m.hl", "keys") == [
        '{"false":0,"true":1}',
        '{"false":0,"true":1}',
        '{"-3":"a"}',
        '{"false":0,"true":1}',
    ]


@pytest.mark.parametrize("text", ["12", "-12", "+5", "007", "-0"])
def test_to_int_reads_a_sign_and_ascii_digits(program, text: str) -> None:
    assert program.call("m.hl", "read", text) == int(text)


@pytest.mark.parametrize(
    "text", ["١٢", "１", " 12 ", "12 ", "+", "-", "", "1_0", "--1", "+-1", "1e3"]
)
def test_to_int_refuses_everything_else(program, text: str) -> None:
    with pytest.raises(HaleError) as info:
        program.call("m.hl", "read", text)
    assert info.value.diagnostics[0].code == "E0405"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=8))
def test_to_int_is_exactly_the_grammar(program, text: str) -> None:
    if re.fullmatch(r"[+-]?[0-9]+", text, re.ASCII):
        assert program.call("m.hl", "read", text) == int(text)
    else:
        with pytest.raises(HaleError):
            program.call("m.hl", "read", text)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e999", "[-1e400]"])
def test_json_input_holds_no_nan_or_infinity(program, text: str) -> None:
    with pytest.raises(HaleError) as info:
        program.call("m.hl", "parse", text)
    assert info.value.diagnostics[0].code == "E0407"
    with pytest.raises(JsonRefused):
        parse_json(text)


def test_json_nesting_is_limited_at_its_edge(program) -> None:
    deep_ok = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert program.call("m.hl", "parse", deep_ok) is not None
    too_deep = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    with pytest.raises(HaleError) as info:
        program.call("m.hl", "parse", too_deep)
    assert info.value.diagnostics[0].code == "E0407"
    assert "nests deeper than 100 levels" in info.value.diagnostics[0].message
    way_too_deep = "[" * 100_000 + "]" * 100_000  # past Python's own recursion limit
    with pytest.raises(HaleError):
        program.call("m.hl", "parse", way_too_deep)


def run(tmp_path: Path, *args: str):
    (tmp_path / "m.hl").write_text(SOURCE)
    r = CliRunner().invoke(hale, ["run", str(tmp_path / "m.hl"), *args], catch_exceptions=False)
    return r.exit_code, r.output


@pytest.mark.parametrize(
    ("arg", "why"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("[Infinity]", "Infinity is not a JSON number"),
        ("[1e999]", "the number 1e999 is out of range"),
        ("[" * 101 + "]" * 101, "it nests deeper than 100 levels"),
        ("[" * 5000 + "]" * 5000, "it nests deeper than 100 levels"),
    ],
)
def test_hale_run_refuses_such_arguments(tmp_path: Path, arg: str, why: str) -> None:
    code, out = run(tmp_path, "--fn", "echo", "--arg", arg)
    assert code == 2 and f"error[E0412]: --arg 1 is refused: {why}\n" in out
    assert "quote JSON strings" not in out and "Traceback" not in out


def test_hale_run_says_to_quote_a_bare_word(tmp_path: Path) -> None:
    code, out = run(tmp_path, "--fn", "echo", "--arg", "x" * 500)
    assert code == 2 and "error[E0412]: --arg 1 is not JSON" in out
    assert f"--arg '\"{'x' * 57}...\"'" in out  # a long text is clipped in the help


def test_hale_run_a_deep_result_is_a_designed_error(tmp_path: Path) -> None:
    (tmp_path / "d.hl").write_text(
        "struct N { next: List<N> }\n"
        "fn main(n: Int) -> N {\n"
        "    let x = N { next: [] };\n"
        "    let i = 0;\n"
        "    while i < n { x = N { next: [x] }; i += 1; }\n"
        "    return x;\n"
        "}\n"
    )
    args = ["run", str(tmp_path / "d.hl"), "--arg"]
    # 50 structs and their 50 lists: 100 levels, the limit
    ok = CliRunner().invoke(hale, [*args, "49"], catch_exceptions=False)
    assert ok.exit_code == 0 and ok.output.count("next") == 50
    for n in ("50", "5000"):
        deep = CliRunner().invoke(hale, [*args, n], catch_exceptions=False)
        assert deep.exit_code == 1 and "error[E0418]" in deep.output, deep.output[-300:]
