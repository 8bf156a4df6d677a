"""Every ```hale example in docs/language.md checks: each is written to a
genome of its own (with the vendored `vendor/dna` beside it) and built; no
error may come back. Warnings are allowed (an example may import what it
only mentions)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hale_lang.build import compile_entries
from hale_lang.diagnostics import render_all

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "language.md"
EXAMPLES = re.findall(r"^```hale\n(.*?)^```", DOC.read_text(), re.S | re.M)


def test_the_language_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_checks(index: int, tmp_path: Path) -> None:
    shutil.copytree(REPO / "vendor" / "dna", tmp_path / "vendor" / "dna")
    (tmp_path / "example.hl").write_text(EXAMPLES[index])
    compiled = compile_entries(tmp_path, ["example.hl"], use_cache=False)
    assert compiled.errors == [], render_all(compiled.diagnostics, compiled.sources)
