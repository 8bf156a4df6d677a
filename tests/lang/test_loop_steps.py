"""Loops against an oracle: what they compute, and that no item runs unpaid.

Hypothesis draws small programs of nested loops (over ranges of every size
around a batch, over an argument List, over a List the loop itself grows or
shrinks) whose bodies add, push, pop, append, `break`, `continue` and
`return`. Each program is written twice: in Hale, and in Python by a
translation of its own (not the compiler's) that counts a step for the call
and one for every item a loop runs. Hale must compute what Python does; under
a budget one short of that count it must stop with E0404 (every item run is
paid for, and only items not run are given back); and it must finish within
that count plus what loops pay in advance (a batch for each loop open, and
the items a List loses under the loop reading it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_lang.build import build
from hale_lang.diagnostics import HaleError
from hale_lang.meter import RANGE_BATCH

SIZES = [0, 1, 3, RANGE_BATCH - 1, RANGE_BATCH, RANGE_BATCH + 1, 2 * RANGE_BATCH + 50]
CAP = 3_000  # pushes stop at this length: a loop over `out` that pushes ends
RESULT = "acc + len(out) * 1000 + len(s) * 1000000"


@dataclass
class Code:
    hale: list[str]
    py: list[str]

    def indented(self) -> Code:
        return Code(["    " + x for x in self.hale], ["    " + x for x in self.py])

    def __add__(self, other: Code) -> Code:
        return Code(self.hale + other.hale, self.py + other.py)


def same(line: str, py: str | None = None) -> Code:
    return Code([line], [py if py is not None else line])


@st.composite
def statement(draw, names: list[str], depth: int) -> Code:
    v = draw(st.sampled_from(names))
    m, r = draw(st.integers(2, 9)), draw(st.integers(0, 8))
    kinds = ["add", "push", "pop", "append"] + (["loop"] if depth < 3 else [])
    kinds += ["break", "continue", "return"] if depth > 0 else []
    kind = draw(st.sampled_from(kinds))
    if kind == "add":
        return same(f"acc += {v} % 7;", f"acc += {v} % 7")
    if kind == "push":
        return Code(
            [f"if len(out) < {CAP} {{ out.push({v}); }}"], [f"if len(out) < {CAP}: out.append({v})"]
        )
    if kind == "pop":
        return Code(["if len(out) > 0 { out.pop(); }"], ["if len(out) > 0: out.pop()"])
    if kind == "append":
        return Code(['if len(s) < 40 { s += "ab"; }'], ['if len(s) < 40: s += "ab"'])
    if kind == "loop":
        return draw(loop(names, depth + 1))
    if kind == "return":
        return Code(
            [f"if {v} % {m} == {r} {{ return {RESULT}; }}"],
            [f"if {v} % {m} == {r}: return {RESULT}"],
        )
    return Code([f"if {v} % {m} == {r} {{ {kind}; }}"], [f"if {v} % {m} == {r}: {kind}"])


@st.composite
def loop(draw, names: list[str], depth: int) -> Code:
    var = f"v{depth}"
    source = draw(st.sampled_from(["range", "xs", "out"]))
    if source == "range":
        n = draw(st.sampled_from(SIZES))
        head = Code([f"for {var} in range(0, {n}) {{"], [f"for {var} in range(0, {n}):"])
    else:
        head = Code([f"for {var} in {source} {{"], [f"for {var} in {source}:"])
    body = Code([], ["    steps[0] += 1"])
    for st_ in draw(st.lists(statement(names + [var], depth), min_size=1, max_size=4)):
        body = body + st_.indented()
    return head + body + Code(["}"], [])


@st.composite
def programs(draw) -> tuple[str, str]:
    code = Code([], [])
    for part in draw(st.lists(loop(["acc"], 1), min_size=1, max_size=3)):
        code = code + part.indented()
    hale = "\n".join(
        [
            "fn f(xs: List<Int>) -> Int {",
            "    let acc = 0;",
            "    let out: List<Int> = [];",
            '    let s = "";',
            *code.hale,
            f"    return {RESULT};",
            "}",
        ]
    )
    py = "\n".join(
        [
            "def f(xs, steps):",
            "    acc = 0",
            "    out = []",
            '    s = ""',
            *code.py,
            f"    return {RESULT}",
        ]
    )
    return hale, py


def run_hale(tmp_path: Path, source: str, xs: list[int], budget: int) -> int | str:
    (tmp_path / "m.hl").write_text(source)
    try:
        return build(tmp_path, ["m.hl"], use_cache=False, step_budget=budget).call(
            "m.hl", "f", list(xs)
        )
    except HaleError as e:
        (d,) = e.diagnostics
        return d.code


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(program=programs(), xs=st.lists(st.integers(-50, 50), max_size=1_200))
def test_loops_compute_what_python_does_and_pay_for_every_item(
    tmp_path: Path, program: tuple[str, str], xs: list[int]
) -> None:
    hale, py = program
    ns: dict = {}
    exec(py, ns)
    steps = [1]  # the call's own step: it runs a loop
    want = ns["f"](list(xs), steps)
    ahead = 3 * RANGE_BATCH + CAP + len(xs)  # paid in advance, at most
    assert run_hale(tmp_path, hale, xs, steps[0] + ahead) == want, hale
    assert run_hale(tmp_path, hale, xs, steps[0] - 1) == "E0404", hale


@pytest.mark.parametrize("n", SIZES)
def test_the_oracle_counts_as_the_budget_does(tmp_path: Path, n: int) -> None:
    # a plain loop runs on exactly its count: the call's step and its items
    hale = f"fn f(xs: List<Int>) -> Int {{ let k = 0; for i in range(0, {n}) {{ k += 1; }} return k; }}"
    assert run_hale(tmp_path, hale, [], n + 1) == n
    assert run_hale(tmp_path, hale, [], n) == "E0404"
