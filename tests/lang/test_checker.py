"""The checker, data-driven: one bad program per fixture under fixtures/check/.

Each fixture marks the diagnostics it expects on the line they point at,
with a trailing `//~ CODE [CODE …]` comment (in any module it loads); the
test compares those (path, line, code) triples with what `check` reports,
and pins the fully rendered diagnostics with a syrupy snapshot. The
well-typed programs under fixtures/check/ok/ must check cleanly and come out
fully annotated. A hypothesis test mutates valid programs and checks that
the checker never raises.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_lang import nodes as n
from hale_lang.checker import CODES, check
from hale_lang.diagnostics import HaleError, render_all
from hale_lang.loader import LoadedProgram, Loader
from hale_lang.parser import parse

FIXTURES = Path(__file__).parent / "fixtures" / "check"
BAD = sorted(p.name for p in FIXTURES.glob("*.hl"))
OK = ["ok/own_workflows.hl", "ok/models.hl", "ok/everything.hl"]
MARKER = re.compile(r"//~((?:\s+[EW]\d{4})+)\s*$")


def load(entry: str) -> LoadedProgram:
    program = Loader(FIXTURES).load(entry)
    assert program.diagnostics == [], render_all(program.diagnostics, program.sources)
    return program


def expected_markers(program: LoadedProgram) -> Counter:
    found: Counter = Counter()
    for path, text in program.texts.items():
        for lineno, line in enumerate(text.splitlines(), 1):
            m = MARKER.search(line)
            if m:
                found.update((path, lineno, code) for code in m.group(1).split())
    return found


def test_there_are_enough_fixtures() -> None:
    assert len(BAD) >= 32


@pytest.mark.parametrize("name", BAD)
def test_bad_program(name: str, snapshot) -> None:
    program = load(name)
    diags = check(program)
    got = Counter((d.span.path, d.span.line, d.code) for d in diags)
    assert got == expected_markers(program), render_all(diags, program.sources)
    assert all(d.code in CODES for d in diags)
    assert all(d.is_error == d.code.startswith("E") for d in diags)
    assert render_all(diags, program.sources) == snapshot


def test_every_code_has_a_fixture() -> None:
    covered: set[str] = set()
    for name in BAD:
        covered.update(code for _, _, code in expected_markers(load(name)))
    assert covered == set(CODES)


@pytest.mark.parametrize("entry", OK)
def test_good_program_checks_cleanly(entry: str) -> None:
    program = load(entry)
    diags = check(program)
    assert diags == [], render_all(diags, program.sources)


def walk(x):
    """Every node of a tree (dataclass instances), depth first."""
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from walk(y)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        yield x
        for f in dataclasses.fields(x):
            if f.name not in ("span", "ty", "ref"):
                yield from walk(getattr(x, f.name))


@pytest.mark.parametrize("entry", OK)
def test_every_node_is_annotated(entry: str) -> None:
    program = load(entry)
    assert check(program) == []
    count = 0
    for module in program.modules.values():
        for node in walk(module.items):
            if isinstance(node, n.Expr):
                count += 1
                assert node.ty is not None, node
            if isinstance(node, (n.Name, n.Path, n.StructLit, n.MethodCall)):
                assert node.ref is not None, node
            if isinstance(node, n.Call):
                assert node.func.ref.kind in ("fn", "hostfn", "native"), node
    assert count > 0


def refs_of(program: LoadedProgram, cls) -> list[tuple[str, n.Ref]]:
    out = []
    for node in walk(program.modules[program.entry].items):
        if isinstance(node, cls):
            key = getattr(node, "name", None) or getattr(node, "method", None) or node.path
            out.append((key, node.ref))
    return out


def test_refs_follow_the_contract() -> None:
    program = load("ok/own_workflows.hl")
    check(program)
    methods = dict(refs_of(program, n.MethodCall))
    assert methods["define"] == n.Ref(
        "hostmethod", "vendor/dna/mod.hl", "define", "WorkflowCatalog"
    )
    names = dict(refs_of(program, n.Name))
    assert names["len"] == n.Ref("native", name="len", overload=0)
    assert names["catalog"] == n.Ref("local", name="catalog")
    lits = refs_of(program, n.StructLit)
    assert lits[0][1] == n.Ref("struct", "vendor/dna/mod.hl", "WorkRequest")


def test_types_of_natives_and_literals() -> None:
    program = load("ok/everything.hl")
    check(program)
    fn = next(i for i in program.modules["ok/everything.hl"].items if i.name == "maps")
    let_m = fn.body.stmts[0]
    assert str(let_m.value.ty) == "Map<String, List<Int>>"
    assert str(let_m.value.entries[0][1].ty) == "List<Int>"  # `[]` typed from the annotation
    fn = next(i for i in program.modules["ok/everything.hl"].items if i.name == "json")
    assert str(fn.body.stmts[0].value.ty) == "Json"


# --- size (the speed is bench/lang_parse.py's: no test asserts a time) -------------

FN = """
fn work_{i}(xs: List<Int>, name: String) -> Int {{
    let total = 0;
    let parts: List<String> = [];
    for x in xs {{
        if x % 2 == 0 && x > {i} {{
            total = total + x * 2;
        }} else {{
            parts.push(to_string(x) + name);
        }}
    }}
    let m = {{"a": 1, "b": len(parts)}};
    while total > 100 {{
        total = total - m["a"] - m.get("b");
    }}
    return total + len(name.split(","));
}}
"""


def test_a_generated_module_of_200_fns_checks_clean() -> None:
    text = "".join(FN.format(i=i) for i in range(200))
    module = parse(text, "gen.hl")
    program = LoadedProgram(FIXTURES, "gen.hl", {"gen.hl": module}, {"gen.hl": {}})
    assert check(program) == []
    fns = [item for item in module.items if isinstance(item, n.FnDecl)]
    assert len(fns) == 200 and all(fn.body.stmts[-1].value.ty is not None for fn in fns)


# --- robustness --------------------------------------------------------------------

SOURCES = [
    (FIXTURES / "ok" / "everything.hl").read_text(),
    (FIXTURES / "ok" / "own_workflows.hl").read_text(),
    (FIXTURES / "many_errors.hl").read_text(),
]
LIB = {
    "ok/lib.hl": (FIXTURES / "ok" / "lib.hl").read_text(),
    "vendor/dna/mod.hl": (FIXTURES / "vendor" / "dna" / "mod.hl").read_text(),
}
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|[A-Za-z_]\w*|\d+|::|->|[=!<>]=|&&|\|\||\S')
WORD = re.compile(r'[A-Za-z_0-9"]')
SPARE = ["x", "Int", "String", "[]", "{}", "0", '"s"', "(", ")", ".", "::", "len", "return", ";"]


def build(text: str) -> LoadedProgram | None:
    program = LoadedProgram(FIXTURES, "main.hl")
    try:
        for path, src in [*LIB.items(), ("main.hl", text)]:
            program.modules[path] = parse(src, path)
            program.sources.add(path, src)
    except HaleError:
        return None
    program.imports = {"ok/lib.hl": {}, "vendor/dna/mod.hl": {}}
    program.imports["main.hl"] = {"lib": "ok/lib.hl", "dna": "vendor/dna/mod.hl"}
    return program


@st.composite
def mutated(draw) -> str:
    source = re.sub(r"//[^\n]*", "", draw(st.sampled_from(SOURCES)))
    tokens = TOKEN.findall(source)
    pool = sorted(set(tokens)) + SPARE
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(tokens) - 1))
        how = draw(st.sampled_from(["drop", "replace", "swap", "insert", "rename", "rename"]))
        if how == "rename":  # a name or literal for another: usually still parses
            if WORD.match(tokens[i]):
                tokens[i] = draw(st.sampled_from([t for t in pool if WORD.match(t)]))
        elif how == "drop":
            del tokens[i]
        elif how == "replace":
            tokens[i] = draw(st.sampled_from(pool))
        elif how == "insert":
            tokens.insert(i, draw(st.sampled_from(pool)))
        else:
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    return " ".join(tokens)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_check_never_raises_on_mutated_programs(text: str) -> None:
    program = build(text)
    if program is None:
        return
    for d in check(program):
        assert d.code in CODES
        render_all([d], program.sources)


def test_a_failed_import_adds_no_checker_noise(tmp_path: Path) -> None:
    (tmp_path / "main.hl").write_text(
        'import "nowhere" as gone;\n\nfn f() -> gone::T {\n    return gone::make(1);\n}\n'
    )
    program = Loader(tmp_path).load("main.hl")
    assert [d.code for d in program.diagnostics] == ["E0102"]
    assert check(program) == []


def test_checking_twice_gives_the_same_answer() -> None:
    program = load("many_errors.hl")
    first = check(program)
    assert check(program) == first
