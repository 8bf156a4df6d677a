"""The language side of the author's kit: a byte order mark read as nothing,
and values written in Hale's own syntax for the debuggers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hale_lang.build import build
from hale_lang.parser import parse
from hale_lang.show import show

HALE = Path(sys.executable).with_name("hale")
SRC = "fn twice(x: Int) -> Int {\n    return x * 2;\n}\n"


def test_a_bom_is_not_a_syntax_error_and_columns_do_not_move() -> None:
    plain, marked = parse(SRC, "a.hl"), parse("\ufeff" + SRC, "a.hl")
    assert [i.name for i in marked.items] == ["twice"]
    assert marked.items[0].name_span.line == plain.items[0].name_span.line == 1


def test_hale_check_and_run_read_a_file_with_a_bom(tmp_path: Path) -> None:
    (tmp_path / "dna").mkdir()
    (tmp_path / "dna/m.hl").write_bytes(b"\xef\xbb\xbf" + SRC.encode())
    done = subprocess.run(
        [str(HALE), "check", "dna/m.hl"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert build(tmp_path, ["dna/m.hl"]).call("dna/m.hl", "twice", 21) == 42


def test_values_in_hales_syntax() -> None:
    program = build_struct()
    point = program.call("dna/p.hl", "origin")
    assert show(True) == "true" and show(False) == "false"
    assert show(["a", "b"]) == '["a", "b"]'
    assert show({"k": [1, 2], "t": True}) == '{"k": [1, 2], "t": true}'
    assert show({1: "x"}) == '{1: "x"}'
    assert show(point) == 'Point { x: 0, tags: ["o"] }'
    assert show(None) == "null"
    assert show(object()) == "<host object>"
    assert show("é\n") == '"é\\n"'


def build_struct():
    import tempfile

    root = Path(tempfile.mkdtemp())
    (root / "dna").mkdir()
    (root / "dna/p.hl").write_text(
        "struct Point { x: Int, tags: List<String> }\n"
        'fn origin() -> Point {\n    return Point { x: 0, tags: ["o"] };\n}\n'
    )
    return build(root, ["dna/p.hl"])


values = st.recursive(
    st.booleans() | st.integers(-(10**30), 10**30) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=40,
)


@settings(max_examples=40, deadline=None)
@given(values, st.integers(min_value=8, max_value=200))
def test_a_shown_value_is_its_json_with_spaces_clipped_to_the_limit(value, limit) -> None:
    # Hale writes lists, string-keyed maps, strings, Ints and Bools as JSON does
    full = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    assert show(value, 10**6) == full
    text = show(value, limit)
    assert text == full if len(full) <= limit else text == full[: limit - 1] + "…"
