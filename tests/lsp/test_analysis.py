"""The language server's incremental model, in process: what an edit
re-parses and re-checks, and that the answers match a check from scratch."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsp_genome import LIB, MAIN

from hale_lang.checker import check
from hale_lang.diagnostics import HaleError, Span
from hale_lang.loader import Loader
from hale_lang.lsp.analysis import Genome
from hale_lang.lsp.reparse import Reparser
from hale_lang.parser import parse

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for d in ("vendor", "examples") for p in (REPO / d).rglob("*.hl"))
USER = """\
import "dna/org/main" as main;

fn use_it() -> Int {
    return len(main::plan_name());
}
"""


def fresh(genome: Genome) -> Genome:
    genome.refresh()
    return genome


def test_an_edit_in_a_body_rechecks_only_its_module(genome: Path) -> None:
    g = fresh(Genome(genome))
    g.edit("dna/org/lib.hl", LIB.replace('split(" ")', 'split(",")'))
    assert g.refresh() == {"dna/org/lib.hl"} and g.rechecked == ["dna/org/lib.hl"]


def test_an_edited_signature_rechecks_the_modules_reading_it(genome: Path) -> None:
    (genome / "dna/org/user.hl").write_text(USER)
    main = MAIN + '\nfn plan_name() -> String {\n    return "plan";\n}\n'
    (genome / "dna/org/main.hl").write_text(main)
    g = fresh(Genome(genome))
    assert g.diagnostics("dna/org/user.hl") == []
    g.edit("dna/org/lib.hl", LIB.replace("count: Int", "count: String"))
    g.refresh()
    # user.hl reads only main::plan_name, which did not move: it is not checked again
    assert g.rechecked == ["dna/org/lib.hl", "dna/org/main.hl"]
    assert g.diagnostics("dna/org/user.hl") == []
    assert [d.code for d in g.diagnostics("dna/org/main.hl")] == ["E0301", "E0305"]


def test_the_diagnostics_are_those_of_a_check_from_scratch(genome: Path) -> None:
    g = fresh(Genome(genome))
    broken = LIB.replace("fn words(text: String)", "fn words(text: Int)")
    g.edit("dna/org/lib.hl", broken)
    g.refresh()
    (genome / "dna/org/lib.hl").write_text(broken)
    program = Loader(genome).load("dna/org/lib.hl", "dna/org/main.hl")
    scratch = check(program)
    mine = g.diagnostics("dna/org/lib.hl") + g.diagnostics("dna/org/main.hl")
    assert [(d.code, d.span) for d in mine] == [(d.code, d.span) for d in scratch]
    assert [d.code for d in scratch] == ["E0206", "E0302"]


def test_a_buffer_that_does_not_parse_leaves_the_genome_as_it_was(genome: Path) -> None:
    g = fresh(Genome(genome))
    g.edit("dna/org/lib.hl", LIB.replace("fn words", "fn words("))
    g.refresh()
    assert [d.code for d in g.diagnostics("dna/org/lib.hl")] == ["E0001"]
    assert g.rechecked == [] and g.diagnostics("dna/org/main.hl") == []
    g.close("dna/org/lib.hl")
    assert "dna/org/lib.hl" in g.refresh() and g.diagnostics("dna/org/lib.hl") == []


def test_a_module_that_no_longer_loads_is_a_failed_import_for_its_importers(genome: Path) -> None:
    g = fresh(Genome(genome))
    (genome / "dna/org/lib.hl").unlink()
    g.files_changed()
    g.refresh()
    assert [d.code for d in g.diagnostics("dna/org/main.hl")] == ["E0102"]
    assert "dna/org/lib.hl" not in g.checked


def _dump(x: object) -> object:
    """A syntax tree as nested tuples, spans included, annotations left out."""
    if isinstance(x, list | tuple):
        return tuple(_dump(y) for y in x)
    fields = getattr(type(x), "__dataclass_fields__", None)
    if fields is None or type(x) is Span:
        return x
    return (
        type(x).__name__,
        tuple((k, _dump(getattr(x, k))) for k in fields if k not in ("ty", "ref")),
    )


def _parsed(text: str, path: str, parser) -> object:
    try:
        return _dump(parser(text, path))
    except HaleError as e:
        return [d.code for d in e.diagnostics]


INSERTS = st.sampled_from(["{", "}", "(", ")", '"', "//", "\n", "fn ", "\nfn g() {}\n", "\\", "x"])


@settings(max_examples=60, deadline=None)
@given(
    file=st.sampled_from(SHIPPED),
    edits=st.lists(st.tuples(st.floats(0, 1), INSERTS, st.booleans()), min_size=1, max_size=6),
)
def test_reparsing_in_chunks_gives_the_tree_of_a_whole_parse(file: Path, edits) -> None:
    """Any sequence of edits, even ones that break the text: the tree from
    the kept chunks is the whole parse's, spans and all, or both fail."""
    text, reparser, path = file.read_text(), Reparser(), str(file)
    reparser.parse(text, path)
    for where, piece, delete in edits:
        at = int(where * len(text))
        text = text[:at] + text[at + len(piece) :] if delete else text[:at] + piece + text[at:]
        got = _parsed(text, path, reparser.parse)
        want = _parsed(text, path, parse)
        assert got == want or (isinstance(got, list) and isinstance(want, list))


PIECES = st.sampled_from(
    [
        "fn ",
        "f",
        "(",
        ")",
        "{",
        "}",
        "let x = ",
        "x",
        ".",
        "::",
        "lib",
        ";",
        "\n",
        '"',
        "1",
        " ",
        "é",
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.lists(PIECES, max_size=4)), min_size=1, max_size=5
    ),
    probes=st.lists(st.tuples(st.integers(1, 14), st.integers(1, 40)), min_size=1, max_size=4),
)
def test_any_text_any_position_answers_without_failing(genome_root: Path, edits, probes) -> None:
    """The editor is a door: whatever an author types, wherever the cursor
    stands, every feature answers (perhaps nothing) and never raises."""
    from hale_lang.lsp import navigate
    from hale_lang.lsp.complete import complete

    g = fresh(Genome(genome_root))
    text = MAIN
    for where, pieces in edits:
        at = int(where * len(text))
        text = text[:at] + "".join(pieces) + text[at:]
        g.edit("dna/org/main.hl", text)
        g.refresh()
        for line, col in probes:
            navigate.hover(g, "dna/org/main.hl", line, col)
            navigate.definition(g, "dna/org/main.hl", line, col)
            navigate.references(g, "dna/org/main.hl", line, col, True)
            complete(g, "dna/org/main.hl", text, min(line, text.count("\n") + 1), col)
        navigate.symbols(g, "dna/org/main.hl")
