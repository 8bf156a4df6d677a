"""Runtime errors: one fixture per kind under fixtures/runtime/, each with
`fn main`. Every fixture checks cleanly; running it (or, for load-time
errors, building it) raises a HaleError whose rendered diagnostic — code,
message, caret under the Hale span, help, Hale stack trace — is pinned with
a syrupy snapshot. No Python exception other than HaleError may escape.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang.build import build, compile_entries
from hale_lang.diagnostics import HaleError, render_all

FIXTURES = Path(__file__).parent / "fixtures" / "runtime"
NAMES = sorted(p.name for p in FIXTURES.glob("*.hl"))
CLOCK = "vendor/clock.hl"


class Store:
    """A stand-in host type whose `get` fails for a missing key."""

    def get(self, key: str) -> str:
        raise LookupError(f"no {key!r} in the store")


def bindings_for(name: str) -> dict | None:
    if name == "unbound_host.hl":
        return {}  # a host that binds nothing: every declared item is missing
    if name == "host_bad_return.hl":
        return {f"{CLOCK}::now_ms": lambda: "soon", f"{CLOCK}::Store": Store}
    if name == "host_failure.hl":
        return {f"{CLOCK}::now_ms": lambda: 1, f"{CLOCK}::Store": Store}
    return None


def memory_for(name: str) -> int | None:
    """The host's memory ceiling: a List grown a push at a time meets a small one
    sooner (filling the default 64 MiB took seconds), and the message says it."""
    return 4 << 20 if name == "memory_ceiling_list.hl" else None


def run(name: str) -> None:
    """Build the fixture as its host would and run its `main`."""
    program = build(
        FIXTURES, [name], bindings_for(name), use_cache=False, max_memory=memory_for(name)
    )
    program.call(name, "main", *([Store()] if name == "host_failure.hl" else []))


def test_there_is_a_fixture_per_kind() -> None:
    assert len(NAMES) >= 10


@pytest.mark.parametrize("name", NAMES)
def test_fixture_checks_cleanly(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path))
    compiled = compile_entries(FIXTURES, [name])
    assert compiled.errors == []


@pytest.mark.parametrize("name", NAMES)
def test_runtime_error(name: str, snapshot) -> None:
    with pytest.raises(HaleError) as info:
        run(name)
    assert render_all(info.value.diagnostics, info.value.sources) == snapshot


def test_codes_are_the_documented_ones() -> None:
    codes = set()
    for name in NAMES:
        try:
            run(name)
        except HaleError as e:
            codes |= {d.code for d in e.diagnostics}
    expected = {"E0401", "E0402", "E0403", "E0404", "E0405", "E0406", "E0407", "E0408"}
    expected |= {"E0409", "E0410", "E0411", "E0501", "E0502"}
    assert expected <= codes


def test_runtime_error_leaves_the_program_usable() -> None:
    program = build(FIXTURES, ["division_by_zero.hl"], use_cache=False)
    with pytest.raises(HaleError):
        program.call("division_by_zero.hl", "main")
    assert program.call("division_by_zero.hl", "ratio", 7, 2) == 3


def test_step_budget_is_per_call() -> None:
    program = build(FIXTURES, ["step_limit.hl"], step_budget=50, use_cache=False)
    for _ in range(100):  # ~3 steps each: the budget is not used up across calls
        assert program.call("step_limit.hl", "spin", 0) == 0
    with pytest.raises(HaleError) as info:
        program.call("step_limit.hl", "main")
    assert info.value.diagnostics[0].code == "E0404"


def test_loop_iterations_and_calls_are_steps(tmp_path) -> None:
    (tmp_path / "m.hl").write_text(
        "fn count(n: Int) -> Int { let k = 0; for i in range(0, n) { k += 1; } return k; }\n"
        "fn calls(n: Int) -> Int { if n == 0 { return 0; } return 1 + calls(n - 1); }\n"
    )
    program = build(tmp_path, ["m.hl"], step_budget=100, use_cache=False)
    assert program.call("m.hl", "count", 90) == 90
    assert program.call("m.hl", "calls", 90) == 90
    assert program.call("m.hl", "calls", 300) == 300  # a step at one level of recursion in 3
    for fn, n in (("count", 101), ("calls", 301)):
        with pytest.raises(HaleError) as info:
            program.call("m.hl", fn, n)
        assert info.value.diagnostics[0].code == "E0404"


def test_a_declaration_nothing_calls_may_stay_unbound() -> None:
    program = build(FIXTURES, ["ok/unbound_unused.hl"], bindings={}, use_cache=False)
    assert program.call("ok/unbound_unused.hl", "main") == 1
