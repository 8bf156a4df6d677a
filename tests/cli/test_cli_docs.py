"""docs/cli.md is what scripts/cli-docs makes from the command definitions and
the shapes: the test fails when a verb, an option or a shape changed and the
file was not made again."""

from __future__ import annotations

from pathlib import Path

from hale_runtime.cli.reference import generate
from hale_runtime.cli.shapes import SHAPES

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_is_not_stale():
    made = generate()
    assert DOC.read_text(encoding="utf-8") == made, (
        "docs/cli.md is stale: run `bash scripts/cli-docs`"
    )


def test_every_shape_and_verb_is_documented():
    made = generate()
    for verb in SHAPES:
        if verb != "dna work next" or "`hale dna work next`" in made:
            flag = "--output-format json" if verb == "check" else "--json"
            assert f"`hale {verb} {flag}`" in made, verb
    for verb in ("hale dna schedule declare", "hale fmt", "hale completion", "hale dna sense"):
        assert f"## `{verb}`" in made
    assert "-h, --help" in made and "hale completion zsh" in made
