"""Metering: work on big values costs steps, live values meet a ceiling, and
Ints are unbounded up to it. Each case runs a real program; the issue's own
cases (squaring an Int, doubling a String or a List) must end in a designed
error, never in Python's MemoryError or a hang.
"""

from __future__ import annotations

import marshal
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hale_lang.build import build, compile_entries
from hale_lang.diagnostics import HaleError
from hale_lang.meter import parse_size, size_text
from hale_lang.numbers import int_text, parse_decimal
from hale_runtime.cli import hale as cli

BIG = 7**6000  # 5,071 digits: past CPython's 4,300-digit conversion limit


def program(tmp_path: Path, source: str, **kw):
    (tmp_path / "m.hl").write_text(source)
    return build(tmp_path, ["m.hl"], use_cache=False, **kw)


def fault(tmp_path: Path, source: str, fn: str = "main", *args, **kw) -> tuple[str, str]:
    with pytest.raises(HaleError) as info:
        program(tmp_path, source, **kw).call("m.hl", fn, *args)
    (d,) = info.value.diagnostics
    assert d.trace, "a runtime error carries the Hale stack trace"
    return d.code, d.message


DOUBLING = """
fn strings(s: String) -> Int {
    let i = 0;
    while i < 40 { s = s + s; i += 1; }
    return len(s);
}
fn lists(xs: List<Int>) -> Int {
    let i = 0;
    while i < 40 { xs = xs.concat(xs); i += 1; }
    return len(xs);
}
fn squares(x: Int) -> Int {
    let i = 0;
    while i < 40 { x = x * x; i += 1; }
    return x % 10;
}
"""


@pytest.mark.parametrize(
    ("fn", "arg", "code"),
    [("strings", "ab", "E0417"), ("lists", [1, 2], "E0417"), ("squares", 3, "E0404")],
)
def test_the_issue_cases_end_in_a_designed_error(tmp_path: Path, fn, arg, code) -> None:
    got, message = fault(tmp_path, DOUBLING, fn, arg, max_memory=8 << 20)
    assert got == code, message


def test_the_ceiling_is_the_callers(tmp_path: Path) -> None:
    # 2**21 characters fit under 8 MiB and not under 1 MiB
    source = DOUBLING.replace("i < 40", "i < 20")
    assert program(tmp_path, source, max_memory=8 << 20).call("m.hl", "strings", "ab") == 2**21
    assert fault(tmp_path, source, "strings", "ab", max_memory=1 << 20)[0] == "E0417"


def test_the_hosts_setting_is_the_default(tmp_path: Path, monkeypatch) -> None:
    source = DOUBLING.replace("i < 40", "i < 20")
    monkeypatch.setenv("HALE_MAX_MEMORY", "1M")
    assert fault(tmp_path, source, "strings", "ab")[0] == "E0417"
    monkeypatch.setenv("HALE_MAX_MEMORY", "lots")
    with pytest.raises(HaleError) as info:
        program(tmp_path, source)
    assert "HALE_MAX_MEMORY" in info.value.diagnostics[0].message


def test_hale_run_max_memory(tmp_path: Path) -> None:
    (tmp_path / "m.hl").write_text(DOUBLING.replace("i < 40", "i < 20"))
    runner = CliRunner()
    args = ["run", str(tmp_path / "m.hl"), "--fn", "strings", "--arg", '"ab"']
    ok = runner.invoke(cli, [*args, "--max-memory", "8M"])
    assert (ok.exit_code, ok.output.strip()) == (0, str(2**21))
    low = runner.invoke(cli, [*args, "--max-memory", "1M"])
    assert low.exit_code == 1 and "E0417" in low.output
    bad = runner.invoke(cli, [*args, "--max-memory", "lots"])
    assert bad.exit_code == 2 and "--max-memory" in bad.output


def test_live_values_count_not_all_that_was_built(tmp_path: Path) -> None:
    source = """
fn churn(n: Int, keep: Bool) -> Int {
    let kept: List<String> = [];
    let i = 0;
    while i < n {
        let s = to_string(i) + "x".slice(0, 1);
        let j = 0;
        while j < 19 { s = s + s; j += 1; }
        if keep { kept.push(s); }
        i += 1;
    }
    return len(kept);
}
"""
    # 40 strings of about 1 MiB each, one at a time: fine under 8 MiB
    assert program(tmp_path, source, max_memory=8 << 20).call("m.hl", "churn", 40, False) == 0
    # kept, they pass the ceiling
    assert fault(tmp_path, source, "churn", 40, True, max_memory=8 << 20)[0] == "E0417"


GROWING = """
fn in_range(n: Int) -> Int {
    let xs: List<String> = [];
    for i in range(0, n) { xs.push(to_string(i) + "-"); }
    return len(xs);
}
fn map_in_range(n: Int) -> Int {
    let m: Map<Int, String> = {};
    for i in range(0, n) {
        if i % 2 == 0 { m[i] = to_string(i) + "-"; } else { m.insert(i, "odd"); }
    }
    return len(m);
}
fn in_while(n: Int) -> Int {
    let xs: List<String> = [];
    let i = 0;
    while i < n { xs.push(to_string(i) + "-"); i += 1; }
    return len(xs);
}
fn rebound_in_range(n: Int) -> Int {
    let xs: List<String> = [];
    for i in range(0, n) {
        if len(xs) > 1000000000 { xs = []; }
        xs.push(to_string(i) + "-");
    }
    return len(xs);
}
fn inner_range(n: Int) -> Int {
    let xs: List<Int> = [];
    for i in range(0, n) {
        for j in range(0, 10) { xs.push(i + j); }
    }
    return len(xs);
}
"""


@pytest.mark.parametrize(
    "fn", ["in_range", "map_in_range", "in_while", "rebound_in_range", "inner_range"]
)
def test_a_growing_container_meets_the_ceiling(tmp_path: Path, fn: str) -> None:
    # a range loop holds what it grows at each batch, other sites count down:
    # either way a few thousand elements fit and a million do not
    assert program(tmp_path, GROWING, max_memory=4 << 20).call("m.hl", fn, 3000) > 0
    assert fault(tmp_path, GROWING, fn, 1_000_000, max_memory=4 << 20)[0] == "E0417"


def test_a_range_loop_watches_the_locals_it_grows(tmp_path: Path) -> None:
    (tmp_path / "m.hl").write_text(GROWING)
    (artifact,) = compile_entries(tmp_path, ["m.hl"], use_cache=False).artifacts
    fns = [c for c in marshal.loads(artifact.code).co_consts if hasattr(c, "co_name")]
    globals_named = {c.co_name: c.co_names for c in fns}  # no countdown: no `_grew`
    assert "_grew" not in globals_named["F0_in_range"]
    assert "_grew" not in globals_named["F0_map_in_range"]
    assert "_grew" not in globals_named["F0_inner_range"]
    assert "_grew" in globals_named["F0_in_while"]
    assert "_grew" in globals_named["F0_rebound_in_range"]


def test_big_work_costs_steps(tmp_path: Path) -> None:
    source = """
fn join_big(n: Int) -> Int {
    let s = "0123456789abcdef";
    let i = 0;
    while i < n { s = s + s; i += 1; }
    let total = 0;
    let k = 0;
    while k < 50 { total += len(s + "!"); k += 1; }
    return total;
}
"""
    # the same 60 or so loop iterations; concatenating 1 MiB strings costs more
    assert program(tmp_path, source, step_budget=2_000).call("m.hl", "join_big", 6) > 0
    assert fault(tmp_path, source, "join_big", 16, step_budget=2_000)[0] == "E0404"


def test_a_big_charge_says_what_it_needed(tmp_path: Path) -> None:
    with pytest.raises(HaleError) as info:
        program(tmp_path, DOUBLING).call("m.hl", "squares", 3)
    (d,) = info.value.diagnostics
    assert d.code == "E0404" and d.help.startswith("work on a big value costs steps by its size")
    needed, left = (int(w.replace(",", "")) for w in re.findall(r"[\d,]{2,}", d.help))
    assert needed > left


@pytest.mark.parametrize(
    "body",
    [
        'let s = "a"; let i = 0; while i < 20 { s = s + s; i += 1; } return len(s.replace("a", s));',
        'let s = "ab"; let i = 0; while i < 20 { s = s + s; i += 1; } return len([s, s].join(s));',
        "return len(range(0, 100_000_000));",
        'let s = "ab"; let i = 0; while i < 22 { s = s + s; i += 1; } return len(s.chars());',
    ],
)
def test_natives_refuse_what_would_pass_the_ceiling(tmp_path: Path, body: str) -> None:
    code, _ = fault(tmp_path, f"fn main() -> Int {{ {body} }}", max_memory=4 << 20)
    assert code in ("E0417", "E0404")


def test_ints_are_unbounded_up_to_the_ceiling(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    digits = int_text(BIG)
    source = f"""
const BIG: Int = {digits};
fn main() -> List<String> {{
    let x = BIG * BIG;
    let back = to_int(to_string(x));
    return [
        to_string(BIG),
        format("{{}}", BIG),
        json_str([BIG]),
        to_string(back == x),
        to_string(json_parse(json_str(x)).as_int() == x),
        to_string(x / BIG == BIG),
        to_string(x % BIG),
    ];
}}
"""
    compiled = (
        compile_entries(tmp_path, ["m.hl"]) if (tmp_path / "m.hl").write_text(source) else None
    )
    assert compiled is not None and compiled.errors == []
    out = build(tmp_path, ["m.hl"]).call("m.hl", "main")
    assert out == [digits, digits, f"[{digits}]", "true", "true", "true", "0"]


def test_hale_run_prints_a_big_int(tmp_path: Path) -> None:
    (tmp_path / "m.hl").write_text("fn main(x: Int) -> Int { return x * x; }\n")
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "m.hl"), "--arg", int_text(BIG)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == int_text(BIG * BIG)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-(10**12000), max_value=10**12000))
def test_int_text_round_trips(n: int) -> None:
    text = int_text(n)
    assert parse_decimal(text) == n
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert text == str(n)
    finally:
        sys.set_int_max_str_digits(old)


def test_sizes_read_and_print() -> None:
    assert parse_size("64M") == 64 << 20 and parse_size("1g") == 1 << 30
    assert parse_size("2097152") == 2 << 20
    for bad in ("", "12", "1.5G", "-1M", "M", "١M"):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert size_text(64 << 20) == "64 MiB"
    assert size_text((64 << 20) + 1, up=True) == "64.1 MiB"


RANGES = """
fn early(stop: Int, then: Int) -> Int {
    let found = 0;
    for i in range(0, 1_000_000_000) {
        if i == stop { found = i; break; }
    }
    let more = 0;
    for j in range(0, then) { more += 1; }
    return found + more;
}
fn inner(stop: Int) -> Int {
    for i in range(0, 1_000) {
        for j in range(0, 1_000) {
            if i * 1_000 + j == stop { return i + j; }
        }
    }
    return -1;
}
fn spent(stop: Int, then: Int) -> Int {
    let x = inner(stop);
    let k = 0;
    while k < then { k += 1; }
    return x + k;
}
"""


def test_a_range_loop_costs_a_step_per_iteration_run(tmp_path: Path) -> None:
    # calls and iterations that run are steps; the ones a `break` or a
    # `return` skips are not, though a range loop pays for them in advance
    p = program(tmp_path, RANGES, step_budget=100)
    assert p.call("m.hl", "early", 50, 40) == 90  # 1 + 51 + 40 = 92 steps
    assert fault(tmp_path, RANGES, "early", 50, 60, step_budget=100)[0] == "E0404"
    # spent: 1 + inner (1 + 1 + 41) + the while's 1,000 + 1 = 1,045 steps; the
    # 2,000 both range loops paid for in advance are given back by `return`
    p = program(tmp_path, RANGES, step_budget=2_200)
    assert p.call("m.hl", "spent", 40, 1_000) == 40 + 1_000
    assert fault(tmp_path, RANGES, "spent", 40, 2_200, step_budget=2_200)[0] == "E0404"


def test_a_range_past_the_budget_runs_what_it_can(tmp_path: Path) -> None:
    source = "fn f() -> Int { let n = 0; for i in range(0, 500) { n += 1; } return n; }"
    assert program(tmp_path, source, step_budget=502).call("m.hl", "f") == 500
    code, _ = fault(tmp_path, source, "f", step_budget=500)
    assert code == "E0404"


ITEMS = """
fn early(xs: List<Int>, stop: Int) -> Int {
    let n = 0;
    for x in xs {
        if x == stop { return n; }
        n += 1;
    }
    return n;
}
fn broken(xs: List<Int>, stop: Int, then: Int) -> Int {
    let n = 0;
    for x in xs {
        if x == stop { break; }
        n += 1;
    }
    let k = 0;
    while k < then { k += 1; }
    return n + k;
}
fn grows(xs: List<Int>, cap: Int) -> Int {
    let n = 0;
    for x in xs {
        if len(xs) < cap { xs.push(x + 1); }
        n += x;
    }
    return n;
}
fn shrinks(xs: List<Int>) -> Int {
    let n = 0;
    for x in xs {
        xs.pop();
        n += x;
    }
    return n;
}
"""


def test_a_loop_over_items_costs_a_step_per_item_run(tmp_path: Path) -> None:
    # items are paid for a batch at a time; `return` and `break` give back
    # those paid for and not run. early: 1 + 1,501 items (the last returns)
    xs = list(range(2_000))
    assert program(tmp_path, ITEMS, step_budget=1_502).call("m.hl", "early", xs, 1_500) == 1_500
    assert fault(tmp_path, ITEMS, "early", xs, 1_500, step_budget=1_501)[0] == "E0404"
    # broken: 1 + 1,501 items + the while's 500 + 1, with the 499 items its
    # second batch paid for and never ran given back
    p = program(tmp_path, ITEMS, step_budget=2_003)
    assert p.call("m.hl", "broken", xs, 1_500, 500) == 2_000
    assert fault(tmp_path, ITEMS, "broken", xs, 1_500, 500, step_budget=2_002)[0] == "E0404"


def test_a_loop_reads_its_list_as_it_changes(tmp_path: Path) -> None:
    # each batch is what is left when it starts: a List that grows as it is
    # read is read to its new end, one that shrinks stops at its end
    p = program(tmp_path, ITEMS)
    assert p.call("m.hl", "grows", [1], 3_000) == sum(range(1, 3_001))
    xs = list(range(5_000))
    assert p.call("m.hl", "shrinks", xs) == sum(range(2_500)) and len(xs) == 2_500


def test_a_list_grown_as_it_is_read_pays_for_each_item_run(tmp_path: Path) -> None:
    # such a List reads ahead of what is left, twice the last batch each
    # time, and counts what passed: the batch the List ends under gives back
    # what it paid for and did not run (3,503 steps, as when batches were of one)
    source = (
        ITEMS
        + """
fn then(xs: List<Int>, cap: Int, m: Int) -> Int {
    let n = grows(xs, cap);
    let i = 0;
    while i < m { i += 1; }
    return n + i;
}
"""
    )
    want = sum(range(1, 3_001)) + 500
    assert (
        program(tmp_path, source, step_budget=3_503).call("m.hl", "then", [1], 3_000, 500) == want
    )
    assert fault(tmp_path, source, "then", [1], 3_000, 500, step_budget=3_502)[0] == "E0404"


APPENDS = (
    """
fn appends(n: Int) -> Int {
    let s = "";
    for i in range(0, n) { s += "%s"; }
    return len(s);
}"""
    % ("0123456789abcdef" * 64)
    + """
fn appends_then_calls(n: Int) -> Int {
    let s = "";
    let i = 0;
    while i < n { s += "x"; i += 1; }
    return len(s) + two();
}
fn two() -> Int { return one() + one(); }
fn one() -> Int { return 1; }
fn fib(n: Int) -> Int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}
"""
)


def test_a_literal_append_site_meets_the_ceiling(tmp_path: Path) -> None:
    # the site counts its appends down and holds the string batch by batch
    p = program(tmp_path, APPENDS, max_memory=4 << 20, step_budget=10**9)
    assert p.call("m.hl", "appends", 1_000) == 1_024_000
    code, _ = fault(tmp_path, APPENDS, "appends", 100_000, max_memory=4 << 20, step_budget=10**9)
    assert code == "E0417"


RUNS = """
fn run(n: Int) -> Int {
    let s = "";
    for i in range(0, n) { s += "0123456789abcdef"; }
    return len(s);
}
fn broken_runs(n: Int) -> Int {
    let s = "";
    let k = 0;
    while k < n {
        for i in range(0, 2_000) {
            if i == 1_000 { break; }
            s += "0123456789abcdef";
        }
        k += 1;
    }
    return len(s);
}
"""


@pytest.mark.parametrize("fn, small, big", [("run", 10_000, 100_000), ("broken_runs", 10, 100)])
def test_a_range_loop_charges_its_literal_appends_batch_by_batch(
    tmp_path: Path, fn: str, small: int, big: int
) -> None:
    # the loop counts a batch's appends by how much the String grew, also
    # when a `break` leaves it part way: 1.6 MB of appends meet a 1 MiB
    # ceiling, and cost far more steps than the 100,000 appends themselves
    p = program(tmp_path, RUNS, max_memory=1 << 20, step_budget=10**9)
    assert p.call("m.hl", fn, small) == 160_000
    assert fault(tmp_path, RUNS, fn, big, max_memory=1 << 20, step_budget=10**9)[0] == "E0417"
    assert program(tmp_path, RUNS, step_budget=10**9).call("m.hl", fn, big) == 1_600_000
    assert fault(tmp_path, RUNS, fn, big, step_budget=10**6)[0] == "E0404"


def test_a_call_takes_one_step_once_it_calls_or_loops(tmp_path: Path) -> None:
    # 1 for the call + 1,001 passes of the `while` (the last one ends it) + 1
    # for `two`, which calls; `one` returns before any call or loop and costs
    # nothing; appends to a short string, fewer than a batch, cost nothing more
    p = program(tmp_path, APPENDS, step_budget=1_003)
    assert p.call("m.hl", "appends_then_calls", 1_000) == 1_002
    assert fault(tmp_path, APPENDS, "appends_then_calls", 1_000, step_budget=1_002)[0] == "E0404"


def test_a_call_that_returns_first_costs_no_step(tmp_path: Path) -> None:
    # fib(10) makes 177 calls; the 89 that return at `n < 2` cost nothing, and
    # of the other 88 only the 31 at a depth of fib's own recursion that is a
    # multiple of 3 take a step (emit_fn.STEP_LEVELS)
    assert program(tmp_path, APPENDS, step_budget=31).call("m.hl", "fib", 10) == 55
    assert fault(tmp_path, APPENDS, "fib", 10, step_budget=30)[0] == "E0404"


def test_text_of_a_small_range_counter_and_offset(tmp_path: Path) -> None:
    # `i + k` from a small range needs no check for a big Int: a plain str()
    source = """
fn numbered(n: Int) -> String {
    let parts: List<String> = [];
    for i in range(0, n) { parts.push(to_string(i + 1)); parts.push(to_string(i - 2)); }
    return parts.join(",");
}
fn from_big(n: Int) -> String {
    let parts: List<String> = [];
    for i in range(n, n + 2) { parts.push(to_string(i + 1)); }
    return parts.join(",");
}
"""
    p = program(tmp_path, source)
    assert p.call("m.hl", "numbered", 3) == "1,-2,2,-1,3,0"
    assert p.call("m.hl", "from_big", BIG) == f"{int_text(BIG + 1)},{int_text(BIG + 2)}"
    (artifact,) = compile_entries(tmp_path, ["m.hl"], use_cache=False).artifacts
    fns = {
        c.co_name: c.co_names
        for c in marshal.loads(artifact.code).co_consts
        if hasattr(c, "co_name")
    }
    assert "_itext" not in fns["F0_numbered"] and "_itext" in fns["F0_from_big"]
