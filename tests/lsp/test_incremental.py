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


MID = """\
import "dna/org/lib" as lib;

fn make() -> lib::Tally {
    return lib::Tally { key: "k", count: 1 };
}

fn other() -> Int {
    return 2;
}
"""
FAR = """\
import "dna/org/mid" as mid;

fn n() -> Int {
    return mid::make().count + 1;
}

fn m() -> Int {
    return mid::other();
}
"""


def test_a_changed_field_rechecks_what_reads_it_even_through_another_module(
    genome: Path,
) -> None:
    (genome / "dna/org/mid.hl").write_text(MID)
    (genome / "dna/org/far.hl").write_text(FAR)
    g = Genome(genome)
    g.refresh()
    assert g.diagnostics("dna/org/far.hl") == []
    lib = (genome / "dna/org/lib.hl").read_text()
    changed = lib.replace("count: Int", "count: String")
    g.edit("dna/org/lib.hl", changed)
    g.refresh()
    far = [d.code for d in g.diagnostics("dna/org/far.hl")]
    assert far == ["E0305"]  # `String + Int`, though far.hl never names lib
    assert "dna/org/far.hl" in g.rechecked
    (genome / "dna/org/lib.hl").write_text(changed)
    entries = ["dna/org/lib.hl", "dna/org/main.hl", "dna/org/mid.hl", "dna/org/far.hl"]
    program = Loader(genome).load(*entries)
    scratch = [(d.code, d.span, d.message) for d in check(program)]
    mine = [(d.code, d.span, d.message) for p in entries for d in g.diagnostics(p)]
    assert sorted(mine, key=str) == sorted(scratch, key=str)
    g.edit("dna/org/lib.hl", lib)
    g.refresh()
    assert g.diagnostics("dna/org/far.hl") == [] and g.diagnostics("dna/org/mid.hl") == []


def test_a_field_added_reaches_the_literals_and_nothing_else(genome: Path) -> None:
    (genome / "dna/org/mid.hl").write_text(MID)
    (genome / "dna/org/far.hl").write_text(FAR)
    g = Genome(genome)
    g.refresh()
    lib = (genome / "dna/org/lib.hl").read_text()
    changed = lib.replace("count: Int,", "count: Int,\n    late: Int,")
    g.edit("dna/org/lib.hl", changed)
    g.refresh()
    # the literals in main.hl and mid.hl list every field; far.hl reads `count` only
    assert "dna/org/far.hl" not in g.rechecked
    (genome / "dna/org/lib.hl").write_text(changed)
    entries = ["dna/org/lib.hl", "dna/org/main.hl", "dna/org/mid.hl", "dna/org/far.hl"]
    scratch = [(d.code, d.span, d.message) for d in check(Loader(genome).load(*entries))]
    mine = [(d.code, d.span, d.message) for p in entries for d in g.diagnostics(p)]
    assert sorted(mine, key=str) == sorted(scratch, key=str)
    assert {d[1].path for d in scratch} == {"dna/org/main.hl", "dna/org/mid.hl"}
