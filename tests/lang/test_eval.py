"""Evaluation: every construct and every prelude native, compiled and run.

fixtures/eval/everything.hl holds one small fn per construct or native
group; each test calls one and compares with the value Python computes
for the same thing. A coverage test walks the checked tree and asserts
that every overload in `stdlib.prelude.NATIVES` is called somewhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang import nodes as n
from hale_lang.build import build
from hale_lang.cache import ParseCache
from hale_lang.checker import check
from hale_lang.loader import Loader
from hale_lang.stdlib.prelude import NATIVES, natives_named, to_plain

ROOT = Path(__file__).resolve().parents[2]
ENTRY = "tests/lang/fixtures/eval/everything.hl"


@pytest.fixture(scope="module")
def program():
    return build(ROOT, [ENTRY], use_cache=False)


def call(program, fn: str, *args):
    return to_plain(program.call(ENTRY, fn, *args))


CASES = {
    "literals": ["plain", "tab\there", 'quote"', "back\\slash", "nl\n", "u\u00e9", "nul\0"],
    "arithmetic": [7, 9, 3, -4, 1, 2, -2, 6, 300000000000000000000],
    "comparisons": [True, True, False, False, True, False, True, True, False, True],
    "short_circuit": 1,
    "strings": "concat5",
    "while_break_continue": 1 + 3 + 5 + 7 + 9,
    "for_list_map_string": "123k1k2ab",
    "nested_loops": 15,
    "compound_assign": [1, 11, 6, 3],
    "structs": {"label": "b", "points": [{"x": 11, "y": 2}, {"x": 0, "y": 9}], "tags": {"n": 2}},
    "struct_equality": True,
    "consts_are_copied": ["3", "0", "42"],
    "imported": 8,
    "call_void": 2,
    "n_len": [5, 2, 1, 3],
    "n_convert": ["-5", "true", "s", "[1]", '{"x":1,"y":2}', "42", "7", "-3"],
    "n_math": [-1, 3, 7, 3, 0],
    "n_format": "1 and {} two",
    "n_json": ['{"a":[1,true,null,"s"],"b":{"c":2}}', '{"x":1,"y":2}', '{"k":[1]}'],
    "n_string": [
        "14",
        "true",
        "true",
        "false",
        "5",
        " Hello| World ",
        "Hello, World",
        " Hell0, W0rld ",
        "12",
        " HELLO, WORLD ",
        " hello, world ",
        "Hello",
        "H.e.l.l.o.,. .W.o.r.l.d",
        "b",
    ],
    "n_list": [
        "[9,1,2]",
        "3",
        "5",
        "3",
        "true",
        "2",
        "-1",
        "[1,2]",
        "[9,1,2,7]",
        "[1,2,9]",
        "[2,1,9]",
        "x-y",
    ],
    "n_map": ["2", "2", "-1", "true", '["b","c"]', "[2,3]"],
    "n_json_methods": [
        "[1,2]",
        "2",
        "true",
        "false",
        "5",
        '["n","s","b","l","z"]',
        "object",
        "list",
        "true",
        "3",
        "x",
        "false",
        "2",
        "5",
        "1",
        "false",
    ],
}


@pytest.mark.parametrize("fn", sorted(CASES))
def test_construct(program, fn: str) -> None:
    assert call(program, fn) == CASES[fn]


def test_if_chain(program) -> None:
    assert [call(program, "if_chain", v) for v in (-3, 0, 8)] == ["neg", "zero", "pos"]


def test_recursion(program) -> None:
    assert call(program, "recursion", 100) == 5050


def test_host_values_as_parameters(program) -> None:
    point = program.new_struct(ENTRY, "Point", x=1, y=2)
    out = program.call(ENTRY, "params", 1, "s", [1, 2], {"k": True}, point, {"j": None})
    assert out == '1 s [1,2] {"k":true} {"x":1,"y":2} {"j":null}'


def test_call_json_converts_arguments(program) -> None:
    args = [1, "s", [1, 2], {"k": True}, {"x": 1, "y": 2}, [None, 1.5]]
    assert (
        program.call_json(ENTRY, "params", args) == '1 s [1,2] {"k":true} {"x":1,"y":2} [null,1.5]'
    )


def test_consts_from_the_host_are_copies(program) -> None:
    words = program.const(ENTRY, "WORDS")
    words.append("zzz")
    assert program.const(ENTRY, "WORDS") == ["b", "a", "c"]
    assert to_plain(program.const(ENTRY, "ORIGIN")) == {"x": 0, "y": 0}


def test_every_native_is_evaluated() -> None:
    program = Loader(ROOT, ParseCache()).load(ENTRY)
    assert [d for d in check(program) if d.is_error] == []
    used = set()
    for module in program.modules.values():
        for node in _walk(module):
            ref = getattr(node, "ref", None)
            if isinstance(ref, n.Ref) and ref.kind == "native":
                used.add((ref.name, ref.overload))
    every = {(nat.name, natives_named(nat.name).index(nat)) for nat in NATIVES}
    assert every - used == set()


def _walk(node):
    yield node
    if isinstance(node, list | tuple):
        for x in node:
            yield from _walk(x)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name not in ("span", "ty", "ref"):
                yield from _walk(getattr(node, name))
