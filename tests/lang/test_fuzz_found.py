"""What bench/fuzz.py found stays fixed: each fixtures/fuzz/*.hl is an input
that once crashed hale (its first lines say how), reduced by hand. Each goes
through the fuzzer's own pipeline (load and check, compile and run, fmt
twice) and nothing may count as a failure; the diagnostics it gets instead
are pinned in a snapshot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from hale_lang.cache import ParseCache
from hale_lang.checker import check
from hale_lang.diagnostics import render_all
from hale_lang.loader import Loader

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "fuzz"
CASES = sorted(p.name for p in FIXTURES.glob("*.hl"))


def fuzzer():
    spec = importlib.util.spec_from_file_location("hale_bench_fuzz", REPO / "bench" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


FUZZ = fuzzer()


def test_there_are_fuzz_fixtures() -> None:
    assert CASES


@pytest.mark.parametrize("name", CASES)
def test_a_found_input_fails_nothing(name: str, snapshot) -> None:
    text = (FIXTURES / name).read_text()
    assert text.startswith("// Found by bench/fuzz.py")
    happened = FUZZ.run_one(str(FIXTURES), name, text, ParseCache())
    assert [(k, d) for k, d in happened if k in FUZZ.BAD] == []
    program = Loader(FIXTURES).load(name)
    diags = program.diagnostics + check(program)
    assert render_all(diags, program.sources) == snapshot
