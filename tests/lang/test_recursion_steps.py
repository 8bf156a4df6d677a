"""Recursion against an oracle: a fn that calls itself takes its step at one
level of its own recursion in STEP_LEVELS (the levels between run copies of
it that take none), and still every program stops.

Hypothesis draws two fns that call themselves, each other, and themselves in
a range loop; a Python oracle counts the steps by the rule in docs/language.md
(a call that goes on to call or loop takes a step, unless the same fn called
it from one of the STEP_LEVELS - 1 levels below one that took a step; every
loop item takes a step).
Hale must compute what the oracle does, finish on exactly that budget and
stop with E0404 one step short of it.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_lang.build import build
from hale_lang.diagnostics import HaleError
from hale_lang.emit_fn import STEP_LEVELS

KINDS = st.sampled_from(["self", "other", "loop"])
BODY = st.lists(st.tuples(KINDS, st.integers(1, 3)), min_size=1, max_size=3)


def hale_fn(name: str, other: str, body: list[tuple[str, int]]) -> str:
    lines = [f"fn {name}(n: Int) -> Int {{", "    if n <= 0 { return 1; }", "    let t = 0;"]
    for i, (kind, w) in enumerate(body):
        if kind == "self":
            lines.append(f"    t += {name}(n - 1);")
        elif kind == "other":
            lines.append(f"    t += {other}(n - 1) * {w};")
        else:
            lines.append(f"    for i{i} in range(0, {w}) {{ t += {name}(n - 1) + i{i}; }}")
    return "\n".join([*lines, "    return t;", "}"])


def oracle(bodies: dict[str, list[tuple[str, int]]], name: str, n: int) -> tuple[int, int]:
    """(value, steps) of `name(n)` called from another fn."""
    steps = 0
    other = {"a": "b", "b": "a"}

    def run(fn: str, n: int, level: int) -> int:
        nonlocal steps
        if n <= 0:
            return 1
        steps += level == 0
        below = (level + 1) % STEP_LEVELS
        t = 0
        for kind, w in bodies[fn]:
            if kind == "self":
                t += run(fn, n - 1, below)
            elif kind == "other":
                t += run(other[fn], n - 1, 0) * w
            else:
                steps += w
                for j in range(w):
                    t += run(fn, n - 1, below) + j
        return t

    return run(name, n, 0), steps


def outcome(tmp_path: Path, source: str, n: int, budget: int) -> int | str:
    (tmp_path / "m.hl").write_text(source)
    try:
        return build(tmp_path, ["m.hl"], use_cache=False, step_budget=budget).call("m.hl", "a", n)
    except HaleError as e:
        (d,) = e.diagnostics
        return d.code


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(a=BODY, b=BODY, n=st.integers(1, 6))
def test_recursion_takes_a_step_at_one_level_in_three(
    tmp_path: Path, a: list[tuple[str, int]], b: list[tuple[str, int]], n: int
) -> None:
    source = hale_fn("a", "b", a) + "\n" + hale_fn("b", "a", b) + "\n"
    want, steps = oracle({"a": a, "b": b}, "a", n)
    assert outcome(tmp_path, source, n, steps) == want, source
    assert outcome(tmp_path, source, n, steps - 1) == "E0404", source


WIDE = """
fn wide(n: Int) -> Int {
    if n == 0 { return 1; }
    return wide(n - 1) + wide(n - 1) + wide(n - 1);
}
fn forever(n: Int) -> Int {
    return forever(n + 1) + 1;
}
"""


def test_a_recursion_too_wide_to_finish_stops_at_its_budget(tmp_path: Path) -> None:
    # 3^40 calls, never deeper than 41: only the step budget stops it
    assert outcome(tmp_path, WIDE.replace("wide", "a"), 40, 10_000) == "E0404"
    (tmp_path / "m.hl").write_text(WIDE)
    program = build(tmp_path, ["m.hl"], use_cache=False, step_budget=10_000)
    assert program.call("m.hl", "wide", 8) == 3**8  # 3,280 calls that call, 757 steps
    try:
        program.call("m.hl", "forever", 0)
    except HaleError as e:
        (d,) = e.diagnostics
    assert d.code == "E0410"
    assert {f.fn for f in d.trace} == {"forever"}, "the twin is `forever` in the trace"
