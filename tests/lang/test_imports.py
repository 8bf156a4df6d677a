"""The one import rule: an import stays inside the genome root, or inside the
stdlib folder for `std/`. Each way out is tried against a real secret module
outside the genome, which must never load, and whose existence must not
change the answer.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hale_lang.build import compile_entries
from hale_lang.diagnostics import SourceMap, render_all
from hale_lang.loader import STDLIB_DIR, Loader

SECRET = 'const KEY: String = "hunter2";\n'


def genome(tmp_path: Path) -> tuple[Path, Path]:
    """A genome root and, beside it, a folder holding secret.hl."""
    root, outside = tmp_path / "genome", tmp_path / "outside"
    (root / "lib").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.hl").write_text(SECRET)
    (root / "lib" / "ok.hl").write_text("const X: Int = 1;\n")
    return root, outside


def attempt(root: Path, path: str) -> list:
    (root / "main.hl").write_text(
        f'import "{path}" as s;\n\nfn main() -> String {{\n    return s::KEY;\n}}\n'
    )
    program = Loader(root).load("main.hl")
    assert not any(p.endswith("secret.hl") for p in program.modules), path
    assert "hunter2" not in "".join(program.texts.values())
    return program.diagnostics


def forms(outside: Path, root: Path) -> dict[str, str]:
    climb = "/".join([".."] * len(STDLIB_DIR.parts)) + outside.as_posix()
    return {
        "absolute": f"{outside.as_posix()}/secret",
        "dot-dot": "../outside/secret",
        "dot-dot inside a path": "lib/../../outside/secret",
        "std//absolute": f"std/{outside.as_posix()}/secret",
        "std/..": f"std/{climb}/secret",
        "dot part": "./lib/ok",
        "control character": "lib\t/ok",
    }


@pytest.mark.parametrize(
    "form",
    [
        "absolute",
        "dot-dot",
        "dot-dot inside a path",
        "std//absolute",
        "std/..",
        "dot part",
        "control character",
    ],
)
def test_a_path_leaving_the_genome_is_refused_by_its_form(tmp_path: Path, form: str) -> None:
    root, outside = genome(tmp_path)
    path = forms(outside, root)[form]
    diags = attempt(root, path)
    assert [d.code for d in diags] == ["E0104"], [d.message for d in diags]
    assert diags[0].span is not None and diags[0].span.line == 1
    # the answer is the same whether or not the target exists: nothing to probe
    (outside / "secret.hl").unlink()
    assert [d.message for d in attempt(root, path)] == [d.message for d in diags]


def test_a_symlink_pointing_out_is_refused(tmp_path: Path) -> None:
    root, outside = genome(tmp_path)
    os.symlink(outside / "secret.hl", root / "lib" / "secret.hl")
    os.symlink(outside, root / "out")
    os.symlink(outside / "missing", root / "lib" / "gone.hl")
    for path in ("lib/secret", "out/secret", "lib/gone"):
        diags = attempt(root, path)
        assert [d.code for d in diags] == ["E0104"], path
        assert diags[0].message == f'import path "{path}" leads out of its folder through a symlink'
        assert "copy it in" in diags[0].help


def test_a_symlink_inside_the_genome_is_followed(tmp_path: Path) -> None:
    root, _ = genome(tmp_path)
    os.symlink(root / "lib", root / "alias")
    (root / "main.hl").write_text(
        'import "alias/ok" as a;\n\nfn main() -> Int {\n    return a::X;\n}\n'
    )
    program = Loader(root).load("main.hl")
    assert program.diagnostics == []
    assert "alias/ok.hl" in program.modules


def test_std_names_only_the_stdlib_folder(tmp_path: Path) -> None:
    root, _ = genome(tmp_path)
    (root / "std").mkdir()
    (root / "std" / "fake.hl").write_text(SECRET)
    diags = attempt(root, "std/fake")
    assert [d.code for d in diags] == ["E0102"]


def test_the_std_help_names_only_modules_that_exist(tmp_path: Path, snapshot) -> None:
    """A missing `std/` module is told what the standard library holds: every
    `std/…` name the help offers loads (today there is none to offer)."""
    root, _ = genome(tmp_path)
    (diag,) = attempt(root, "std/strings")
    offered = re.findall(r"`(std/[^`]+)`", diag.help)
    assert all((STDLIB_DIR / f"{name[4:]}.hl").is_file() for name in offered)
    assert offered or "no modules" in diag.help
    assert render_all([diag], SourceMap({"main.hl": (root / "main.hl").read_text()})) == snapshot


def test_the_build_cache_answers_the_same(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HALE_CACHE_DIR", str(tmp_path / "cache"))
    root, outside = genome(tmp_path)
    path = forms(outside, root)["std/.."]
    attempt(root, path)
    for _ in range(2):  # cold, then from the cache
        compiled = compile_entries(root, ["main.hl"])
        assert [d.code for d in compiled.errors] == ["E0104"]
        assert "hunter2" not in "".join(compiled.texts.values())
