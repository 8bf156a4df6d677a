"""The static check: resolve names, compute types, annotate the tree.

`check(program)` visits the loaded modules in load order (every import
before its importer) and, for each, runs four steps:

1. declare its items (`resolver.declare`),
2. resolve the types written in item headers (`resolver.resolve_signatures`),
3. check its constants in source order — a constant sees only those above
   it — and then every function body (`typecheck.BodyChecker`),
4. warn about imports it never used.

It annotates the syntax tree in place for the compiler (every expression's
`ty`, every name's `ref`; see `nodes.Ref`) and returns every diagnostic of
every module, each module's sorted by position. The tree is well typed for
the compiler exactly when no diagnostic is an error. Refs may be shared
between nodes: treat them as read-only.
"""

from __future__ import annotations

from . import nodes as n
from .diagnostics import Diagnostic
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
    "E0319": "an item nested too deeply to check",
    "E0325": "sorting a list whose elements are not Int or String",
    # warnings
    "W0201": "unused import",
    "W0202": "unreachable statement",
    "W0203": "an expression statement whose value is never used",
}


def check(program: LoadedProgram) -> list[Diagnostic]:
    """Check every module of `program`, annotating it; returns all diagnostics."""
    envs: dict[str, ModuleEnv] = {}
    out: list[Diagnostic] = []
    for path, module in program.modules.items():
        out.extend(check_module(module, program.imports.get(path, {}), envs))
    return out


def check_module(
    module: n.Module, imports: dict[str, str], envs: dict[str, ModuleEnv]
) -> list[Diagnostic]:
    """Check one module whose imports are already in `envs` (alias ->
    module path in `imports`); files its table as `envs[module.path]` and
    returns its diagnostics by position. A language server re-checks an
    edited module and its importers this way, keeping the others' tables."""
    diags: list[Diagnostic] = []
    env = declare(module, imports, envs, diags)
    resolve_signatures(env)
    _check_bodies(env)
    _unused_imports(env)
    diags.sort(key=_position)
    return diags


def _check_bodies(env: ModuleEnv) -> None:
    checker = BodyChecker(env)
    syms = list(env.items.values())
    for sym in syms:
        if sym.kind == "const":
            _guarded(env, checker.check_const, sym)
    for sym in syms:
        if sym.kind == "fn":
            _guarded(env, checker.check_fn, sym)


def _guarded(env: ModuleEnv, check_one, sym: Sym) -> None:
    """Check one item; nesting deeper than Python's stack is a diagnostic."""
    try:
        check_one(sym)
    except RecursionError:
        if sym.kind == "const":
            sym.type = ERROR
        what = "constant" if sym.kind == "const" else "function"
        env.diags.append(
            Diagnostic(
                "E0319",
                f"{what} `{sym.name}` nests too deeply to check",
                sym.node.name_span,
                "split the deepest expression with `let` variables",
            )
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
