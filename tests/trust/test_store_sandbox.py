"""The sandbox's memory ceiling holds for nested containers: a List of Lists
of Strings, none big alone, is counted by what it holds, not by its slots."""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang.build import build
from hale_lang.diagnostics import HaleError

SOURCE = """
fn nested(n: Int) -> Int {
    let outer: List<List<String>> = [];
    for i in range(0, n) {
        let inner: List<String> = [];
        for j in range(0, 100) { inner.push(to_string(i * 1000 + j) + "PAD"); }
        outer.push(inner);
    }
    return len(outer);
}
fn deeper(n: Int) -> Int {
    let outer: List<List<List<String>>> = [];
    let i = 0;
    while i < n {
        let mid: List<List<String>> = [];
        for k in range(0, 10) {
            let inner: List<String> = [];
            for j in range(0, 10) { inner.push(to_string(i * 1000 + j) + "PAD"); }
            mid.push(inner);
        }
        outer.push(mid);
        i += 1;
    }
    return len(outer);
}
""".replace("PAD", "x" * 100)


@pytest.mark.parametrize("fn", ["nested", "deeper"])
def test_store_nested_containers_meet_the_ceiling(tmp_path: Path, fn: str) -> None:
    (tmp_path / "m.hl").write_text(SOURCE)
    program = build(tmp_path, ["m.hl"], use_cache=False, max_memory=4 << 20, step_budget=10**9)
    assert program.call("m.hl", fn, 10) == 10  # 10 x 100 short Strings fit
    with pytest.raises(HaleError) as info:
        program.call("m.hl", fn, 3000)  # 3000 x 100 of them (~45 MB) do not
    (found,) = info.value.diagnostics
    assert found.code == "E0417" and "memory ceiling exceeded" in found.message
