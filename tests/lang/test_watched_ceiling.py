"""The memory ceiling holds in a loop that grows a container, whatever one
item weighs: such a loop checks its containers after batches paced by how
much they grew (meter._Pace), so it passes the ceiling by a small amount
before E0417, not by a batch of 1,024 items of any size.

Each case fills a List in a loop with items of one size (Strings just under
the size the meter holds one by one, rows of them, small Ints) under a 1 MiB
ceiling, and the peak of what Python allocated during the call (tracemalloc)
must stay within 1.5 MiB. Before pacing, rows of four 4,000-character
Strings reached 15.9 MiB.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from hale_lang.build import build
from hale_lang.diagnostics import HaleError

CEILING = 1 << 20

SOURCE = """
fn range_rows(n: Int, s: String) -> Int {
    let rows: List<List<String>> = [];
    for i in range(0, n) {
        let row: List<String> = [];
        row.push(s + "a"); row.push(s + "b"); row.push(s + "c"); row.push(s + "d");
        rows.push(row);
    }
    return len(rows);
}
fn item_rows(xs: List<Int>, s: String) -> Int {
    let rows: List<List<String>> = [];
    for x in xs {
        let row: List<String> = [];
        row.push(s + "a"); row.push(s + "b"); row.push(s + "c"); row.push(s + "d");
        rows.push(row);
    }
    return len(rows);
}
fn range_strings(n: Int, s: String) -> Int {
    let out: List<String> = [];
    for i in range(0, n) { out.push(s + to_string(i)); }
    return len(out);
}
fn nested_strings(n: Int, s: String) -> Int {
    let out: List<String> = [];
    for i in range(0, n) {
        for j in range(0, 2) { let k = j; }
        out.push(s + to_string(i));
    }
    return len(out);
}
fn push_while_reading(x: Int, s: String) -> Int {
    let xs = [x];
    for y in xs { xs.push(y + 1); }
    return len(xs);
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory):
    root: Path = tmp_path_factory.mktemp("ceiling")
    (root / "m.hl").write_text(SOURCE)
    return build(root, ["m.hl"], use_cache=False, max_memory=CEILING)


def peak_of(program, fn: str, arg: object, s: str) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result: object = program.call("m.hl", fn, arg, s)
    except HaleError as e:
        result = e.diagnostics[0].code
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize(
    "fn, arg, piece",
    [
        ("range_rows", 100_000, 4_000),
        ("item_rows", list(range(100_000)), 4_000),
        ("range_strings", 100_000, 4_000),
        ("nested_strings", 100_000, 4_000),
        ("range_strings", 1_000_000, 100),
        ("push_while_reading", 1, 0),
    ],
)
def test_a_loop_that_grows_a_list_stops_near_the_ceiling(
    program, fn: str, arg: object, piece: int
) -> None:
    s = "x" * piece
    program.call("m.hl", "range_strings", 1, "")  # the step budget's bytes, made once
    result, peak = peak_of(program, fn, arg, s)
    assert result == "E0417"
    assert peak < CEILING * 3 // 2, f"{fn}: {peak / (1 << 20):.1f} MiB under a 1 MiB ceiling"


def test_a_loop_under_the_ceiling_still_finishes(program) -> None:
    # paced batches pay steps as before: a loop that fits runs to its end
    assert program.call("m.hl", "range_rows", 40, "x" * 4_000) == 40
    assert program.call("m.hl", "range_strings", 3_000, "ab") == 3_000
