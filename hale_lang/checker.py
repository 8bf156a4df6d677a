"""The static check: resolve names, compute types, annotate the tree.

`check(program)` visits the loaded modules in load order (every import
before its importer) and, for each, runs five steps:

1. measure how deep each item nests (`limits.depth_errors`, with no
   recursion); an item past a limit gets that diagnostic and no other check,
2. declare its items (`resolver.declare`),
3. resolve the types written in item headers (`resolver.resolve_signatures`),
4. check its constants in source order — a constant sees only those above
   it — and then every function body (`typecheck.BodyChecker`),
5. warn about imports it never used.

The recursive steps run with `limits.headroom()`, so a program within the
limits checks whatever depth the caller already runs at.

It annotates the syntax tree in place for the compiler (every expression's
`ty`, every name's `ref`; see `nodes.Ref`) and returns every diagnostic of
every module, each module's sorted by position. The tree is well typed for
the compiler exactly when no diagnostic is an error. Refs may be shared
between nodes: treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Callable

from . import nodes as n
from .diagnostics import Diagnostic
from .gc_pause import collector_paused
from .limits import depth_errors, headroom
from .loader import LoadedProgram
from .resolver import ModuleEnv, Sym, declare, resolve_signatures
from .typecheck import BodyChecker
from .types import ERROR

CODES: dict[str, str] = {
    # names and resolution
    "E0201": "undefined name",
    "E0202": "unknown import alias",
    "E0203": "unknown module member",
    "E0204": "unknown type, or a name that is not a type",
    "E0205": "unknown field in a struct literal",
    "E0206": "unknown method for a type",
    "E0207": "unknown field in a field access",
    "E0208": "missing fields in a struct literal",
    "E0209": "a variable that would shadow a variable in scope",
    "E0210": "duplicate definition (item, parameter, struct field, host method)",
    "E0211": "a field given twice in a struct literal",
    "E0212": "reserved identifier (starts with `__`)",
    "E0213": "a function, type or module used as a value",
    "E0214": "calling something that is not a function",
    "E0215": "a constant used before its definition",
    "E0216": "a struct literal of something that is not a struct",
    "E0217": "a qualified name longer than `alias::item`",
    # types and flow
    "E0301": "mismatched types (let, const, assignment, struct field)",
    "E0302": "mismatched argument type",
    "E0303": "wrong number of arguments",
    "E0304": "mismatched return (type, missing value, or value in a Void function)",
    "E0305": "operator applied to the wrong types",
    "E0306": "a condition that is not Bool",
    "E0307": "list elements or map entries of differing types",
    "E0308": "an empty literal whose type cannot be inferred",
    "E0309": "a function that can reach its end without returning",
    "E0310": "`break` or `continue` outside a loop",
    "E0311": "a map key type other than Int, String or Bool",
    "E0312": "assigning to a constant or to a value that is not a place",
    "E0313": "`Void` used as a value",
    "E0314": "indexing a type that cannot be indexed, or with the wrong type",
    "E0315": "iterating over a type that cannot be iterated",
    "E0316": "wrong number of type arguments",
    "E0317": "no overload of a prelude function fits the arguments",
    "E0318": "a host value given to a function that turns values into text or JSON",
    "E0319": "an expression nested deeper than limits.MAX_EXPR_DEPTH levels",
    "E0320": "blocks nested deeper than limits.MAX_BLOCK_DEPTH levels",
    "E0321": "loops nested deeper than limits.MAX_LOOP_DEPTH levels",
    "E0322": "a written type nested deeper than limits.MAX_TYPE_DEPTH levels",
    "E0325": "sorting a list whose elements are not Int or String",
    # warnings
    "W0201": "unused import",
    "W0202": "unreachable statement",
    "W0203": "an expression statement whose value is never used",
    "W0204": "a `let` or `for` variable that is never used",
}


def check(program: LoadedProgram) -> list[Diagnostic]:
    """Check every module of `program`, annotating it; returns all diagnostics."""
    envs: dict[str, ModuleEnv] = {}
    out: list[Diagnostic] = []
    with headroom(), collector_paused():
        for path, module in program.modules.items():
            out.extend(check_module(module, program.imports.get(path, {}), envs))
    return out


def check_module(
    module: n.Module,
    imports: dict[str, str],
    envs: dict[str, ModuleEnv],
    depth: Callable[[n.Module], list[Diagnostic]] = depth_errors,
    on_item: Callable[[Sym], None] | None = None,
) -> list[Diagnostic]:
    """Check one module whose imports are already in `envs` (alias ->
    module path in `imports`); files its table as `envs[module.path]` and
    returns its diagnostics by position. A language server re-checks an
    edited module and its importers this way, keeping the others' tables
    (and may give `depth`, limits.depth_errors that remembers its items, and
    `on_item`, told of each const and fn before its check)."""
    with headroom():
        diags = depth(module)
        too_deep = {d.span for d in diags}
        env = declare(module, imports, envs, diags)
        resolve_signatures(env)
        _check_bodies(env, too_deep, on_item)
        _unused_imports(env)
    diags.sort(key=_position)
    return diags


def _check_bodies(env: ModuleEnv, too_deep: set, on_item=None) -> None:
    checker = BodyChecker(env)
    syms = [s for s in env.items.values() if not _inside(s.node, too_deep)]
    for sym in env.items.values():
        if sym.kind == "const" and sym not in syms:
            sym.type = ERROR
    for sym in syms:
        if sym.kind == "const":
            if on_item is not None:
                on_item(sym)
            checker.check_const(sym)
    for sym in syms:
        if sym.kind == "fn":
            if on_item is not None:
                on_item(sym)
            checker.check_fn(sym)


def _inside(node, spans: set) -> bool:
    """Does an item hold one of these spans (of a depth diagnostic)?"""
    s = node.span
    return any(
        sp.path == s.path and (s.line, s.col) <= (sp.line, sp.col) <= (s.end_line, s.end_col)
        for sp in spans
    )


def _unused_imports(env: ModuleEnv) -> None:
    for alias, target in env.aliases.items():
        if alias not in env.used and target is not None:
            node = env.items[alias].node
            env.diags.append(
                Diagnostic(
                    "W0201",
                    f"unused import `{alias}`",
                    node.span,
                    "remove it",
                    severity="warning",
                )
            )


def _position(d: Diagnostic) -> tuple[int, int]:
    return (d.span.line, d.span.col) if d.span is not None else (0, 0)
