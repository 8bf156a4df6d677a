"""The house's layers, read from every import (inside functions and under
TYPE_CHECKING too): no module imports a layer above its own, and no modules
import each other in a loop.

The scan parses each .py file of hale_lang and hale_runtime with `ast`,
resolves every `import`/`from … import` (relative ones too) to the module of
this tree it loads (a submodule when the name is one, else the package), and
checks two things on that graph: each edge points to the same layer or one
below (LAYERS, low to high), and its strongly connected components (Tarjan)
are single modules. What is not mended yet stands in KNOWN_UPWARD and
KNOWN_CYCLES with the reason and the owner; an entry that no longer holds
fails too, so the lists only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hale_lang", "hale_runtime")

# Low to high; a module may import its own layer and the layers below it.
# The order is DESIGN.md's: the language below the organism; then the stores
# (the record below memory and the nerves), the performers the engine hosts,
# the engine, the catalog that binds definitions for it, the organization's
# parts, the node that runs them, the head that serves legs beside a node,
# and the faces people use (the TUI, then the DAP and the browser face on it,
# the CLI over all).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("hale_lang",),
    (
        "hale_runtime",
        "hale_runtime.errors",
        "hale_runtime.durability",
        "hale_runtime.seen",
        "hale_runtime.sqlite_wal",
        "hale_runtime.extras",
        "hale_runtime.project",
        "hale_runtime.toolchain",
    ),
    ("hale_runtime.record",),
    ("hale_runtime.memory", "hale_runtime.nerves", "hale_runtime.owners"),
    ("hale_runtime.performers",),
    ("hale_runtime.engine",),
    ("hale_runtime.catalog",),
    (
        "hale_runtime.asks",
        "hale_runtime.schedules",
        "hale_runtime.readings",
        "hale_runtime.ledger",
    ),
    ("hale_runtime.node",),
    ("hale_runtime.head",),
    ("hale_runtime.tui",),
    ("hale_runtime.face", "hale_runtime.dap"),
    ("hale_runtime.cli",),
)

# (importer, imported) -> why it still points up, and who mends it
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

# modules that import each other in a loop -> why, and who mends it
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def modules() -> dict[str, Path]:
    """Every module of the tree by dotted name (a package by its __init__)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _loaded(name: str, known: dict[str, Path]) -> str | None:
    """The module of the tree that importing `name` runs: the longest known prefix."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, source: str, known: dict[str, Path], is_package: bool):
    """(imported module, line) for every import statement in `source`, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _loaded(alias.name, known), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield _loaded(sub if sub in known else base, known), node.lineno


def graph() -> dict[str, dict[str, int]]:
    """module -> {module it imports: first line}, within the tree, no self-edges."""
    known = modules()
    edges: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        out = edges.setdefault(module, {})
        found = imports_of(module, path.read_text(), known, path.name == "__init__.py")
        for target, line in found:
            if target and target != module:
                out.setdefault(target, line)
    return edges


def layer_of(module: str) -> int:
    """The layer of the longest prefix LAYERS names."""
    best, depth = None, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            hit = module == prefix or module.startswith(prefix + ".")
            if hit and prefix.count(".") > depth:
                best, depth = index, prefix.count(".")
    assert best is not None, f"{module} stands in no layer: add its package to LAYERS"
    return best


def upward(edges: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    return {
        (a, b): line
        for a, out in edges.items()
        for b, line in out.items()
        if layer_of(b) > layer_of(a)
    }


def cycles(edges: dict[str, dict[str, int]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, rest = work[-1]
            child = next(rest, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.add(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


@pytest.fixture(scope="module")
def edges() -> dict[str, dict[str, int]]:
    return graph()


def test_every_module_stands_in_a_layer(edges):
    for module in edges:
        layer_of(module)


def test_no_module_imports_a_layer_above_its_own(edges):
    found = upward(edges)
    new = [
        f"{a} (line {line}) imports {b}, a layer above it"
        for (a, b), line in sorted(found.items())
        if (a, b) not in KNOWN_UPWARD
    ]
    assert not new, "\n".join(new) + "\nmove the shared piece below both (LAYERS' order)"
    mended = sorted(set(KNOWN_UPWARD) - set(found))
    assert not mended, f"mended, so remove them from KNOWN_UPWARD: {mended}"


def test_no_modules_import_each_other_in_a_loop(edges):
    found = cycles(edges)
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not new, f"modules importing each other in a loop: {new}; move the shared piece below"
    mended = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not mended, f"mended, so remove them from KNOWN_CYCLES: {mended}"


def test_the_scan_sees_imports_inside_functions_and_relative_ones():
    known = {m: Path() for m in ("p", "p.a", "p.b", "p.c", "p.d")}
    source = (
        "from . import b\n"
        "def f():\n    from .c import x\n"
        "if TYPE_CHECKING:\n    import p.d\n"
        "import os\n"
    )
    found = {t for t, _ in imports_of("p.a", source, known, is_package=False)}
    assert found == {"p.b", "p.c", "p.d", None}


def test_an_upward_import_and_a_loop_are_caught():
    edges = {
        "hale_runtime.record.row": {"hale_runtime.cli.common": 3},
        "hale_runtime.cli.common": {"hale_runtime.record.row": 5},
    }
    assert upward(edges) == {("hale_runtime.record.row", "hale_runtime.cli.common"): 3}
    assert cycles(edges) == [frozenset(edges)]


@given(st.dictionaries(st.integers(0, 7), st.sets(st.integers(0, 7), max_size=4), max_size=8))
def test_a_module_is_in_a_loop_exactly_when_it_reaches_itself(raw):
    edges = {str(a): {str(b): 1 for b in bs if b != a} for a, bs in raw.items()}

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), {}):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    in_loops = set().union(*cycles(edges)) if cycles(edges) else set()
    assert in_loops == {m for m in edges if m in reach(m)}
