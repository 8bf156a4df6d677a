"""Checking only the bodies an edit touched gives what a check from scratch gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_genome import MAIN

from hale_lang.checker import check
from hale_lang.loader import Loader
from hale_lang.lsp import incremental
from hale_lang.lsp.analysis import Genome

BODY_EDITS = [
    ("if t.count > 0 {", "if t.cont > 0 {"),  # an unknown field
    ('    return "";\n}', '    let spare = 1;\n    return "";\n}'),  # a line more: checked whole
    ("return d;", "return 1;"),  # a type error
    ("lib::words(objective)", "len(objective)"),  # `lib::` kept in use by the literal
    ("lib::Tally { key", "Tally { key"),  # an unknown struct
    ('let d = catalog.define("close", 1, "record", "close the month");', 'let d = "x";'),
]


@pytest.mark.parametrize(("old", "new"), BODY_EDITS)
def test_a_body_edit_gives_the_diagnostics_of_a_check_from_scratch(
    genome: Path, old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    used = []
    recheck = incremental.recheck_bodies
    monkeypatch.setattr(
        "hale_lang.lsp.analysis.recheck_bodies",
        lambda *a: used.append(r := recheck(*a)) or r,
    )
    g = Genome(genome)
    g.refresh()
    edited = MAIN.replace(old, new)
    assert edited != MAIN
    for text in (edited, MAIN, edited):  # broken, mended, broken again
        g.edit("dna/org/main.hl", text)
        g.refresh()
    (genome / "dna/org/main.hl").write_text(edited)
    program = Loader(genome).load("dna/org/lib.hl", "dna/org/main.hl")
    scratch = [(d.code, d.span, d.message) for d in check(program)]
    mine = g.diagnostics("dna/org/lib.hl") + g.diagnostics("dna/org/main.hl")
    assert [(d.code, d.span, d.message) for d in mine] == scratch
    if "\n" not in new:
        assert used and all(r is not None for r in used)  # only the body was checked
