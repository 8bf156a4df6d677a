"""Debug hooks: statement, call and return events with the frame's Hale
locals, switched on and off per Program, and free when off (the plain
code has no hook calls at all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang.build import build
from hale_lang.diagnostics import HaleError

SOURCE = """\
fn add(a: Int, b: Int) -> Int {
    let s = a + b;
    return s;
}

fn main() -> Int {
    let total = 0;
    for i in [1, 2] {
        total = add(total, i);
    }
    let j = 0;
    while j < 1 {
        j += 1;
    }
    return total;
}

fn boom(n: Int) -> Int {
    return 10 / n;
}
"""


class Recorder:
    def __init__(self):
        self.events = []

    def on_statement(self, f):
        self.events.append(("stmt", f.fn, f.line, f.col, f.depth, f.locals))

    def on_call(self, f):
        self.events.append(("call", f.fn, f.line, f.depth, f.locals))

    def on_return(self, f, value):
        self.events.append(("return", f.fn, f.line, f.depth, value))


@pytest.fixture
def program(tmp_path: Path):
    (tmp_path / "m.hl").write_text(SOURCE)
    return build(tmp_path, ["m.hl"], use_cache=False)


def test_events_in_order_with_locals(program) -> None:
    rec = Recorder()
    program.set_hooks(rec)
    assert program.call("m.hl", "main") == 3
    assert rec.events == [
        ("call", "main", 6, 1, {}),
        ("stmt", "main", 7, 5, 1, {}),
        ("stmt", "main", 8, 5, 1, {"total": 0, "i": 1}),
        ("stmt", "main", 9, 9, 1, {"total": 0, "i": 1}),
        ("call", "add", 1, 2, {"a": 0, "b": 1}),
        ("stmt", "add", 2, 5, 2, {"a": 0, "b": 1}),
        ("stmt", "add", 3, 5, 2, {"a": 0, "b": 1, "s": 1}),
        ("return", "add", 3, 2, 1),
        ("stmt", "main", 8, 5, 1, {"total": 1, "i": 2}),
        ("stmt", "main", 9, 9, 1, {"total": 1, "i": 2}),
        ("call", "add", 1, 2, {"a": 1, "b": 2}),
        ("stmt", "add", 2, 5, 2, {"a": 1, "b": 2}),
        ("stmt", "add", 3, 5, 2, {"a": 1, "b": 2, "s": 3}),
        ("return", "add", 3, 2, 3),
        ("stmt", "main", 11, 5, 1, {"total": 3}),
        ("stmt", "main", 12, 5, 1, {"total": 3, "j": 0}),
        ("stmt", "main", 13, 9, 1, {"total": 3, "j": 0}),
        ("stmt", "main", 12, 5, 1, {"total": 3, "j": 1}),
        ("stmt", "main", 15, 5, 1, {"total": 3, "j": 1}),
        ("return", "main", 15, 1, 3),
    ]


def test_partial_hooks_and_detaching(program) -> None:
    lines = []

    class OnlyStatements:
        def on_statement(self, f):
            lines.append(f.line)

    program.set_hooks(OnlyStatements())
    program.call("m.hl", "add", 1, 2)
    assert lines == [2, 3]
    program.set_hooks(None)
    program.call("m.hl", "add", 1, 2)
    assert lines == [2, 3]


def test_faults_under_hooks_still_map_to_hale(program) -> None:
    program.set_hooks(Recorder())
    with pytest.raises(HaleError) as info:
        program.call("m.hl", "boom", 0)
    (d,) = info.value.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("E0401", 19, 12)
    assert [(f.fn, f.line) for f in d.trace] == [("boom", 19)]


def test_a_hook_may_stop_execution_with_its_own_exception(program) -> None:
    class Stop(Exception):
        pass

    class Stopper:
        def on_statement(self, f):
            if f.line == 9:
                raise Stop

    program.set_hooks(Stopper())
    with pytest.raises(Stop):
        program.call("m.hl", "main")


def test_plain_code_has_no_hook_calls(program) -> None:
    assert "_hk" not in program._plain["F0_main"].__code__.co_names
    program.set_hooks(Recorder())
    assert "_hk" in program._hooked["F0_main"].__code__.co_names


def test_hooks_after_a_warm_build(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "m.hl").write_text(SOURCE)
    build(tmp_path, ["m.hl"])
    program = build(tmp_path, ["m.hl"])  # from the build cache: no tree in hand
    rec = Recorder()
    program.set_hooks(rec)
    assert program.call("m.hl", "add", 2, 3) == 5
    assert rec.events[0] == ("call", "add", 1, 1, {"a": 2, "b": 3})


def test_hooks_refused_when_the_genome_changed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "m.hl").write_text(SOURCE)
    program = build(tmp_path, ["m.hl"])
    (tmp_path / "m.hl").write_text(SOURCE + "\nfn more() -> Int { return 1; }\n")
    with pytest.raises(HaleError) as info:
        program.set_hooks(Recorder())
    assert info.value.diagnostics[0].code == "E0415"
