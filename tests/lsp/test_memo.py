"""Random edit sequences through the language server's model give, after
every edit, the diagnostics a check from scratch gives; and once a module's
positions are asked for, the types its expressions carry are a fresh
check's too (bodies whose diagnostics came from a kept check, memo.py, are
checked again for them)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_lang.checker import check
from hale_lang.loader import Loader
from hale_lang.lsp.analysis import Genome
from hale_lang.lsp.index import expressions

TYPES = """\
struct WorkRequest { objective: String, requires: String }
struct Slot { id: String, due: Int, runs: Int }

host type Catalog {
    fn define(id: String, rev: Int) -> String;
    fn leaf(id: String, step: Int, work: WorkRequest) -> String;
    fn occurs(id: String, input: String) -> String;
}

const MINUTE: Int = 60000;
"""

UNIT = """\
fn define_{i}(catalog: t::Catalog) -> String {{
    let d = catalog.define("close-{i}", 1);
    if len(d) > 0 {{ return d; }}
    let a = catalog.leaf("close-{i}", 0, t::WorkRequest {{ objective: "o", requires: "r" }});
    if len(a) > 0 {{ return a; }}
    return catalog.occurs("close-{i}", "period");
}}

fn due_{i}(slots: List<t::Slot>, now: Int) -> List<String> {{
    let out: List<String> = [];
    for s in slots {{
        if s.due + t::MINUTE > now {{
            continue;
        }}
        out.push(s.id);
    }}
    return out;
}}

"""

MODULES = {
    "lib/types.hl": TYPES,
    "dna/a.hl": 'import "lib/types" as t;\n\n' + UNIT.format(i=0) + UNIT.format(i=1),
    "dna/b.hl": 'import "lib/types" as t;\n\n' + UNIT.format(i=2),
}

# (module, one text, the other): each step turns one of them over
EDITS = [
    ("lib/types.hl", "input: String) -> String;", "input: String, note: String) -> String;"),
    ("lib/types.hl", "input: String) -> String;", "input: String) -> Int;"),
    ("lib/types.hl", "fn define(id: String, rev: Int)", "fn define(id: String, rev: String)"),
    ("lib/types.hl", "requires: String }", "requires: Int }"),
    ("lib/types.hl", "due: Int,", "due: String,"),
    ("lib/types.hl", "runs: Int }", "runs: Int, late: Int }"),
    ("lib/types.hl", "fn leaf(", "fn leaves("),
    ("lib/types.hl", "const MINUTE: Int = 60000;", 'const MINUTE: String = "m";'),
    ("dna/a.hl", "if len(d) > 0 {", "if lenght(d) > 0 {"),
    ("dna/a.hl", "slots: List<t::Slot>, now: Int) -> List<String> {{\n    let out", "x"),
    ("dna/b.hl", 'catalog.define("close-2", 1)', 'catalog.define("close-2", "one")'),
    (
        "dna/b.hl",
        "fn due_2(slots: List<t::Slot>, now: Int)",
        "fn due_2(slots: List<t::Slot>, now: String)",
    ),
]


def write(root: Path) -> Path:
    for path, text in MODULES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def scratch(root: Path, texts: dict[str, str]):
    program = Loader(root, texts=texts).load(*sorted(texts))
    diags = check(program)
    return program, sorted(((d.code, d.span, d.message) for d in diags), key=str)


def typed(module) -> list[tuple]:
    return [(e.span, str(e.ty)) for e in expressions(module)]


def turn(text: str, old: str, new: str) -> str:
    return text.replace(old, new, 1) if old in text else text.replace(new, old, 1)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.integers(0, len(EDITS) - 1), min_size=1, max_size=12))
def test_any_edits_give_the_diagnostics_and_types_of_a_check_from_scratch(
    tmp_path: Path, steps: list[int]
) -> None:
    root = write(tmp_path / "genome")
    texts = dict(MODULES)
    g = Genome(root)
    for path, text in texts.items():
        g.edit(path, text)
    g.refresh()
    for step in steps:
        path, old, new = EDITS[step]
        texts[path] = turn(texts[path], old, new)
        g.edit(path, texts[path])
        g.refresh()
        program, want = scratch(root, texts)
        mine = sorted(
            ((d.code, d.span, d.message) for p in texts for d in g.diagnostics(p)), key=str
        )
        assert mine == want
    for path in texts:
        assert g.index(path) is not None  # brings the module's types up to date
        assert typed(g.checked[path].module) == typed(program.modules[path])


def test_a_signature_turned_back_takes_the_kept_checks(tmp_path: Path) -> None:
    root = write(tmp_path / "genome")
    g = Genome(root)
    g.refresh()
    path, old, new = EDITS[0]
    g.edit(path, TYPES.replace(old, new))
    g.refresh()
    broken = {p: list(g.diagnostics(p)) for p in MODULES}
    assert [d.code for d in broken["dna/b.hl"]] == ["E0303"]  # too few arguments
    g.edit(path, TYPES)
    g.refresh()
    assert all(g.diagnostics(p) == [] for p in MODULES)
    g.edit(path, TYPES.replace(old, new))
    g.refresh()
    # every define_ body took the diagnostics kept from the first time
    assert g.checked["dna/a.hl"].stale == {"define_0", "define_1"}
    assert {p: g.diagnostics(p) for p in MODULES} == broken
    g.index("dna/a.hl")
    assert g.checked["dna/a.hl"].stale == set()


def test_what_is_kept_goes_with_the_bodies_and_tables_it_was_for(tmp_path: Path) -> None:
    root = write(tmp_path / "genome")
    g = Genome(root)
    g.refresh()
    path, old, new = EDITS[0]
    for text in (TYPES.replace(old, new), TYPES):
        g.edit(path, text)
        g.refresh()
    a = g.checked["dna/a.hl"]
    kept = {r.node.name for results in g.memo._kept.values() for r in results if r.env is a.env}
    assert kept == {"define_0", "define_1"}
    before = a.env.items["define_0"].node
    g.edit("dna/a.hl", MODULES["dna/a.hl"].replace("if len(d) > 0 {", "if lenght(d) > 0 {", 1))
    g.refresh()  # define_0's body replaced: what was kept of the old one goes
    nodes = [r.node for results in g.memo._kept.values() for r in results]
    assert not any(node is before for node in nodes)
    assert any(node is a.env.items["define_0"].node for node in nodes)
    g.edit("dna/a.hl", "fn only() -> Int {\n    return 1;\n}\n")
    g.refresh()  # the module checked anew: nothing of its old table is kept
    assert not any(r.env is a.env for results in g.memo._kept.values() for r in results)
