"""The language package stands alone: nothing under hale_lang imports
hale_runtime (at the top, inside a function, or under TYPE_CHECKING), so
`hale check`, `hale fmt` and the language server's analysis load without
the organism; the runtime hands in what it adds (the LSP's admission)."""

from __future__ import annotations

import ast
from pathlib import Path

import hale_lang

LANG = Path(hale_lang.__file__).resolve().parent


def runtime_imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (  # importlib.import_module("hale_runtime…") / __import__(…)
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and getattr(node.func, "attr", getattr(node.func, "id", ""))
            in ("import_module", "__import__")
        ):
            names = [node.args[0].value]
        else:
            continue
        found += [f"{node.lineno}: {m}" for m in names if m.split(".")[0] == "hale_runtime"]
    return found


def test_the_scan_sees_every_form_of_import():
    source = (
        "import hale_runtime\n"
        "def f():\n    from hale_runtime.catalog.admission import x\n"
        "import importlib\nimportlib.import_module('hale_runtime.cli')\n"
        "from hale_lang import nodes\n"
    )
    assert runtime_imports(source) == [
        "1: hale_runtime",
        "3: hale_runtime.catalog.admission",
        "5: hale_runtime.cli",
    ]


def test_hale_lang_imports_nothing_of_hale_runtime():
    files = sorted(LANG.rglob("*.py"))
    assert len(files) > 30 and LANG / "lsp/analysis.py" in files
    found = {
        f.relative_to(LANG).as_posix(): hits
        for f in files
        if (hits := runtime_imports(f.read_text(encoding="utf-8")))
    }
    assert found == {}
