"""The build cache is keyed by what a genome's entries say, not where the
genome lies: a fresh clone of the same text builds from another clone's
cache, and a clone whose text differs anywhere builds anew."""

from __future__ import annotations

from pathlib import Path

from hale_lang.build import build, compile_entries

MAIN = 'import "lib" as lib;\n\nfn main() -> Int {\n    return lib::twice(21);\n}\n'
LIB = "fn twice(n: Int) -> Int {\n    return n * 2;\n}\n"


def clone(root: Path, lib: str = LIB) -> Path:
    root.mkdir()
    (root / "main.hl").write_text(MAIN)
    (root / "lib.hl").write_text(lib)
    return root


def test_a_clone_builds_from_another_clones_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    a, b = clone(tmp_path / "a"), clone(tmp_path / "b")
    assert not compile_entries(a, ["main.hl"]).from_cache
    compiled = compile_entries(b, ["main.hl"])
    assert compiled.from_cache and compiled.root == b.resolve()
    assert build(b, ["main.hl"]).call("main.hl", "main") == 42


def test_a_clone_that_differs_builds_anew(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    a = clone(tmp_path / "a")
    b = clone(tmp_path / "b", LIB.replace("n * 2", "n * 3"))  # same entry, another import
    assert build(a, ["main.hl"]).call("main.hl", "main") == 42
    assert not compile_entries(b, ["main.hl"]).from_cache
    assert build(b, ["main.hl"]).call("main.hl", "main") == 63
    assert build(a, ["main.hl"]).call("main.hl", "main") == 42  # never b's build
