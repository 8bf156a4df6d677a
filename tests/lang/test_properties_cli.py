"""Property tests through the command line (hypothesis).

Mutated valid programs go through `hale check`, `hale run` and `hale fmt`
exactly as a user would run them: whatever the input, each verb ends with a
meaningful exit code and never lets a Python exception out. And formatting
never changes what a program returns: random integer and boolean
expressions, written with redundant parentheses and odd spacing, evaluate to
the same value before and after `hale fmt`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import mutated

from hale_lang.build import build
from hale_lang.diagnostics import HaleError
from hale_lang.formatter import format_source
from hale_lang.stdlib.prelude import to_plain
from hale_runtime.cli import hale

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
EVAL = Path(__file__).parent / "fixtures" / "eval"


def invoke(*args: str) -> int:
    result = CliRunner().invoke(hale, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"hale {' '.join(args)} raised {result.exception!r}")
    return result.exit_code


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("prog")
    monkeypatch.setenv("HALE_CACHE_DIR", str(folder / ".cache"))
    return folder


@SETTINGS
@given(text=mutated())
def test_every_verb_ends_with_an_exit_code_not_a_traceback(workdir: Path, text: str) -> None:
    source = workdir / "p.hl"
    source.write_text(text)
    assert invoke("check", str(source), "--root", str(workdir)) in (0, 1)
    assert invoke("run", str(source), "--root", str(workdir)) in (0, 1, 2)
    assert invoke("fmt", "--check", str(source)) in (0, 1)
    assert invoke("fmt", str(source)) in (0, 1)


def ints(depth: int) -> st.SearchStrategy[str]:
    leaf = st.integers(-50, 50).map(lambda n: f"({n})" if n < 0 else str(n))
    if depth == 0:
        return leaf
    sub = ints(depth - 1)
    op = st.sampled_from(["+", "-", "*", "/", "%"])
    binary = st.tuples(sub, op, sub).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    return st.one_of(leaf, binary, sub.map(lambda e: f"({e})"), sub.map(lambda e: f"-({e})"))


def bools(depth: int) -> st.SearchStrategy[str]:
    compare = st.tuples(ints(1), st.sampled_from(["<", "<=", "==", "!=", ">", ">="]), ints(1))
    leaf = compare.map(lambda t: " ".join(t))
    if depth == 0:
        return leaf
    sub = bools(depth - 1)
    op = st.sampled_from(["&&", "||", "=="])
    binary = st.tuples(sub, op, sub).map(lambda t: f"({t[0]}) {t[1]} {t[2]}")
    return st.one_of(leaf, binary, sub.map(lambda e: f"!({e})"))


def result_of(folder: Path, text: str) -> object:
    source = folder / "e.hl"
    source.write_text(text)
    try:
        return build(folder, ["e.hl"], use_cache=False).call("e.hl", "main")
    except HaleError as e:  # a runtime error is a result too: it must survive formatting
        return [d.code for d in e.diagnostics]


@SETTINGS
@given(i=ints(3), b=bools(2))
def test_formatting_never_changes_what_a_program_returns(workdir: Path, i: str, b: str) -> None:
    text = f"fn main() -> Int {{\n  let b = {b};\n  if b {{ return {i}; }}\n  return  {i} ;\n}}\n"
    before = result_of(workdir, text)
    after = result_of(workdir, format_source(text, "e.hl"))
    assert after == before


def test_every_fn_of_the_eval_fixture_returns_the_same_after_formatting(tmp_path: Path) -> None:
    """Each of everything.hl's fns (one per construct and native) is called
    on the fixture as written and as `hale fmt` lays it out."""
    from hale_lang.parser import parse

    rel = "tests/lang/fixtures/eval"
    results = []
    for n, fmt in enumerate((False, True)):
        folder = tmp_path / str(n) / rel
        folder.mkdir(parents=True)
        for other in EVAL.glob("*.hl"):
            text = other.read_text()
            (folder / other.name).write_text(format_source(text, other.name) if fmt else text)
        program = build(tmp_path / str(n), [f"{rel}/everything.hl"], use_cache=False)
        module = parse((folder / "everything.hl").read_text(), "everything.hl")
        fns = [i.name for i in module.items if type(i).__name__ == "FnDecl" and not i.params]
        results.append({f: result_of_call(program, f"{rel}/everything.hl", f) for f in fns})
    assert results[0] == results[1] and len(results[0]) > 10


def result_of_call(program, module: str, fn: str) -> object:
    try:
        return to_plain(program.call(module, fn))  # each build has its own struct classes
    except HaleError as e:
        return [d.code for d in e.diagnostics]
