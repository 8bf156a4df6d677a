"""Hermeticity: each way a program might reach Python, the machine or the
world is tried, and each must be refused — at check (an error diagnostic)
or at run (a Hale fault) — never succeed and never raise a Python error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang.build import build, compile_entries
from hale_lang.compiler import hooked_variants
from hale_lang.diagnostics import HaleError
from hale_lang.loader import Loader

# programs the checker must refuse: (what is tried, the body of `fn main() -> String`)
REFUSED_AT_CHECK = {
    "dunder attribute": 'let s = "x"; return s.__class__;',
    "dunder method": 'let s = "x"; return s.__str__();',
    "python builtin call": 'return open("/etc/passwd");',
    "import builtin": 'return __import__("os");',
    "eval": 'return eval("1");',
    "getattr": 'return getattr("x", "upper");',
    "globals": "return globals();",
    "str.format method": 'return "{0.__class__}".format("x");',
    "python method on string": 'return "x".upper();',
    "python method on list": 'let xs = [1]; xs.append(2); return "";',
    "dict internals": 'let m = {"a": 1}; return m.__dict__;',
    "environment": 'return env("HOME");',
    "clock": "return to_string(now());",
    "time module": "return time::now();",
    "reserved name": 'let __builtins__ = "x"; return __builtins__;',
    "struct internals": "let p = P { a: 1 }; return p.__slots__;",
    "mangled helper name": "return _C;",
    "native by mangled name": "return N_to_string_0(1);",
}

# programs that check but must not leak anything when run: (body, expected result)
SAFE_AT_RUN = {
    "format braces are literal": ('return format("{0.__class__} {}", 1);', "{0.__class__} 1"),
    "format of a struct is its fields": (
        'return format("{}", P { a: 1 });',
        '{"a":1}',
    ),
    "strings with generated-code syntax": (
        'return "\\u{1}0\\u{2}x\\u{3}" + "\'); import os; (\'" + "\\"\\"\\"";',
        '\x010\x02x\x03\'); import os; (\'"""',
    ),
    "locals named like helpers": (
        "let _C = 1; let next = 2; let len = 3; let range = 4; let _t1 = 5;"
        " return to_string(_C + next + len + range + _t1);",
        "15",
    ),
    "field named like a slot": (
        "let q = Q { _hale_fields: 7, self: 1 }; return to_string(q.self);",
        "1",
    ),
}

HEADER = "struct P { a: Int }\nstruct Q { _hale_fields: Int, self: Int }\n"


def write(tmp_path: Path, body: str) -> None:
    (tmp_path / "m.hl").write_text(f"{HEADER}fn main() -> String {{ {body} }}\n")


@pytest.mark.parametrize("what", sorted(REFUSED_AT_CHECK))
def test_refused_at_check(what: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path, REFUSED_AT_CHECK[what])
    compiled = compile_entries(tmp_path, ["m.hl"])
    assert compiled.errors, what
    assert compiled.artifacts is None


@pytest.mark.parametrize("what", sorted(SAFE_AT_RUN))
def test_safe_at_run(what: str, tmp_path: Path) -> None:
    body, expected = SAFE_AT_RUN[what]
    write(tmp_path, body)
    assert build(tmp_path, ["m.hl"], use_cache=False).call("m.hl", "main") == expected


def test_generated_code_has_no_builtins(tmp_path: Path) -> None:
    write(tmp_path, 'return "x";')
    program = build(tmp_path, ["m.hl"], use_cache=False)
    ns = program._plain
    assert ns["__builtins__"] == {}
    for name in ("open", "__import__", "eval", "exec", "getattr", "type", "print", "globals"):
        assert name not in ns
    # only mangled Hale items, natives and private helpers live there
    for name in ns:
        assert name.startswith(("_", "F", "S", "C", "K", "H", "M", "N_")) or name in (
            "len",
            "min",
            "max",
            "abs",
        ), name


def test_hale_names_are_always_mangled(tmp_path: Path) -> None:
    write(tmp_path, "let open = 1; let print = open; return to_string(print);")
    program = Loader(tmp_path).load("m.hl")
    from hale_lang.checker import check

    assert not [d for d in check(program) if d.is_error]
    source = hooked_variants(program)["m.hl"].source
    assert "v_open" in source and "v_print" in source
    assert " open" not in source.replace("v_open", "")


def test_host_objects_cannot_become_text(tmp_path: Path) -> None:
    (tmp_path / "m.hl").write_text(
        "host type Secret { fn peek() -> Int; }\n"
        "fn main(s: Secret) -> String { return to_string(s) + json_str([s]); }\n"
    )
    compiled = compile_entries(tmp_path, ["m.hl"], use_cache=False)
    assert {d.code for d in compiled.errors} == {"E0318"}


def test_a_faulting_native_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    # a native failing in a way nobody planned for (here, one broken on
    # purpose) still ends as a Hale diagnostic at the call
    write(tmp_path, 'let x = " a ";\nreturn x.trim();')
    program = build(tmp_path, ["m.hl"], use_cache=False)
    program._plain["N_String_trim_0"] = lambda s: [][0]
    with pytest.raises(HaleError) as info:
        program.call("m.hl", "main")
    (d,) = info.value.diagnostics
    assert d.code == "E0499" and "String.trim" in d.message and d.span.line == 4
