"""Module-level resolution: what each top-level name of a module means.

Two passes per module, run in load order (imports first, so everything an
import names is already resolved):

1. `declare` files every item under its name in the module's table (one
   namespace per module: consts, fns, host fns, structs, host types and
   import aliases), refusing duplicates and reserved `__` names.
2. `resolve_signatures` turns every written type of the module's item
   headers (struct fields, parameters, return types, host methods) into a
   `types.Type`.

Function bodies are the type checker's (`typecheck.py`); it calls back
here for written types (`resolve_type`) and qualified names (`lookup_path`).
An import whose module failed to load resolves to `ERROR` silently: the
loader already reported it, and one mistake should give one diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable

from . import nodes as n
from .diagnostics import Diagnostic, Span, did_you_mean
from .types import (
    ERROR,
    PRIMITIVES,
    VOID,
    HostType,
    ListType,
    MapType,
    Prim,
    StructType,
    Type,
)

GENERICS = {"List": 1, "Map": 2}
KEY_TYPES = (PRIMITIVES["Int"], PRIMITIVES["String"], PRIMITIVES["Bool"])


class Sym:
    """One top-level item of a module, with its resolved signature."""

    __slots__ = ("kind", "module", "name", "node", "ref", "type", "params", "ret", "fields")

    def __init__(self, kind: str, module: str, node: n.Item):
        self.kind = kind  # const | fn | hostfn | struct | hosttype | alias | broken
        self.module, self.name, self.node = module, node.name, node
        ref_kind = "struct" if kind in ("struct", "hosttype") else kind
        self.ref = n.Ref(ref_kind, module, node.name)  # shared by every use
        self.type: Type | None = None  # const: its type (None until checked)
        self.params: tuple[Type, ...] = ()  # fn / hostfn
        self.ret: Type = VOID
        # struct: field -> type (declaration order); host type: method -> Sym
        self.fields: dict = {}


class ModuleEnv:
    """A module's table of items, which of its imports were used, and the
    type of every local variable its bodies declare."""

    __slots__ = ("path", "items", "aliases", "used", "diags", "envs", "bindings")

    def __init__(self, path: str, envs: dict[str, ModuleEnv], diags: list[Diagnostic]):
        self.path = path
        self.items: dict[str, Sym] = {}
        self.aliases: dict[str, str | None] = {}  # alias -> module path (None: failed)
        self.used: set[str] = set()
        self.envs, self.diags = envs, diags
        # every local variable's type by the span of its name (the language server's)
        self.bindings: dict[Span, Type] = {}

    def error(
        self,
        code: str,
        message: str,
        span: Span | None,
        help: str | None = None,
        related: tuple[tuple[Span, str], ...] = (),
    ) -> None:
        self.diags.append(Diagnostic(code, message, span, help, related=related))

    # --- qualified names --------------------------------------------------------

    def lookup_path(self, parts: tuple[str, ...], span: Span) -> Sym | None:
        """`alias::item`: the item's Sym, or None once reported (or silent
        when the imported module did not load)."""
        alias = parts[0]
        if alias not in self.aliases:
            sym = self.items.get(alias)
            help = did_you_mean(alias, self.aliases)
            if sym is not None:
                help = f"`{alias}` is an item of this module; name it without `::`"
            self.error("E0202", f"no import named `{alias}`", span, help)
            return None
        self.used.add(alias)
        target = self.aliases[alias]
        env = self.envs.get(target) if target is not None else None
        if env is None:
            return None
        if len(parts) != 2:
            self.error(
                "E0217",
                f"`{'::'.join(parts)}` is not a name",
                span,
                f"a qualified name is `alias::item`, such as `{alias}::{parts[1]}`",
            )
            return None
        sym = env.items.get(parts[1])
        if sym is None or sym.kind == "alias":
            names = [s.name for s in env.items.values() if s.kind != "alias"]
            self.error(
                "E0203",
                f"module `{alias}` has no item `{parts[1]}`",
                span,
                did_you_mean(parts[1], names),
            )
            return None
        return sym

    # --- written types ----------------------------------------------------------

    def resolve_type(self, t: n.TypeRef, void_ok: bool = False) -> Type:
        """A written type as a Type, stored on it for the compiler; reports
        unknown names and misuse (and stores ERROR)."""
        t.ty = ty = self._resolve(t, void_ok)
        return ty

    def _resolve(self, t: n.TypeRef, void_ok: bool) -> Type:
        parts = t.path
        if len(parts) == 1:
            name = parts[0]
            if name not in GENERICS and name not in PRIMITIVES and name not in self.items:
                return self._unknown_type(t, name)
            want = GENERICS.get(name, 0)
            if len(t.args) != want:
                return self._arity(t, name, want)
            if want:
                return self._generic(t, name)
            prim = PRIMITIVES.get(name)
            if prim is not None:
                if prim is VOID and not void_ok:
                    self.error("E0313", "`Void` is not a value type", t.span, _VOID_HELP)
                    return ERROR
                return prim
            sym = self.items[name]
        else:
            sym = self.lookup_path(parts, t.span)
            if sym is None:
                return ERROR
            if t.args:
                return self._arity(t, "::".join(parts), 0)
        if sym.kind == "broken":  # its syntax error is reported
            return ERROR
        if sym.type is None or sym.kind not in ("struct", "hosttype"):
            self.error("E0204", f"`{'::'.join(parts)}` is not a type", t.span)
            return ERROR
        return sym.type

    def _generic(self, t: n.TypeRef, name: str) -> Type:
        args = [self.resolve_type(a) for a in t.args]
        if name == "List":
            return ListType(args[0])
        key = args[0]
        if key is not ERROR and key not in KEY_TYPES:
            self.error(
                "E0311",
                f"`{key}` cannot be a map key",
                t.args[0].span,
                "map keys are Int, String or Bool",
            )
        return MapType(key, args[1])

    def _arity(self, t: n.TypeRef, name: str, want: int) -> Type:
        if want == 0:
            msg, help = f"`{name}` takes no type arguments", None
        else:
            shape = "List<T>" if name == "List" else "Map<K, V>"
            msg, help = f"`{name}` needs {want} type argument{'s' * (want > 1)}", f"write `{shape}`"
        self.error("E0316", msg, t.span, help)
        return ERROR

    def _unknown_type(self, t: n.TypeRef, name: str) -> Type:
        names = [*PRIMITIVES, *GENERICS]
        names += [s.name for s in self.items.values() if s.kind in ("struct", "hosttype")]
        self.error("E0204", f"unknown type `{name}`", t.span, did_you_mean(name, names))
        return ERROR


_VOID_HELP = "`Void` may only be written as a return type (or left out)"

_KINDS = {
    n.Const: "const",
    n.FnDecl: "fn",
    n.HostFn: "hostfn",
    n.StructDecl: "struct",
    n.HostTypeDecl: "hosttype",
    n.Import: "alias",
    n.BrokenItem: "broken",
}


def reserved(env: ModuleEnv, name: str, span: Span) -> None:
    """Refuse an identifier starting with `__` (kept from Hale for hermeticity)."""
    env.error(
        "E0212",
        f"`{name}` is reserved: identifiers may not start with `__`",
        span,
        "rename it",
    )


def declare(
    module: n.Module,
    imports: dict[str, str],
    envs: dict[str, ModuleEnv],
    diags: list[Diagnostic],
) -> ModuleEnv:
    """Pass 1: the module's table of items (and its import aliases)."""
    env = ModuleEnv(module.path, envs, diags)
    envs[module.path] = env
    for item in module.items:
        kind = _KINDS[type(item)]
        if kind == "broken" and item.kind == "import":
            kind = "alias"  # resolves to no module, silently
        name = item.name
        if name.startswith("__"):
            reserved(env, name, item.name_span)
        first = env.items.get(name)
        if first is not None:
            _duplicate(env, item, f"`{name}` is defined twice in this module", first.node.name_span)
            continue
        if kind in ("struct", "hosttype") and (name in PRIMITIVES or name in GENERICS):
            env.error("E0210", f"`{name}` is a built-in type name", item.name_span, "rename it")
            continue
        sym = Sym(kind, module.path, item)
        env.items[name] = sym
        if kind == "alias":
            env.aliases[name] = imports.get(name)
        elif kind == "struct":
            sym.type = StructType(module.path, name)
        elif kind == "hosttype":
            sym.type = HostType(module.path, name)
    return env


def _duplicate(env: ModuleEnv, item, message: str, first: Span) -> None:
    help = f"the first definition is at line {first.line}"
    env.error("E0210", message, item.name_span, help, ((first, "the first definition"),))


def resolve_signatures(env: ModuleEnv) -> None:
    """Pass 2: the types in every item header of the module."""
    for sym in env.items.values():
        try:
            _resolve_header(env, sym)
        except RecursionError:  # a type nested past all sense: limits.py reports it
            continue


def _resolve_header(env: ModuleEnv, sym: Sym) -> None:
    node = sym.node
    kind = sym.kind
    if kind == "struct":
        sym.fields = _fields(env, node)
    elif kind in ("fn", "hostfn"):
        _signature(env, sym, node)
    elif kind == "hosttype":
        methods: dict[str, Sym] = {}
        spans: dict[str, Span] = {}
        for m in node.methods:
            if not _first_of_its_name(env, "method", m.name, m.name_span, spans, _first_help):
                continue
            msym = Sym("hostfn", env.path, m)
            msym.ref = n.Ref("hostmethod", env.path, m.name, owner=node.name)
            _signature(env, msym, m)
            methods[m.name] = msym
        sym.fields = methods


def _fields(env: ModuleEnv, node: n.StructDecl) -> dict[str, Type]:
    fields: dict[str, Type] = {}
    spans: dict[str, Span] = {}
    for f in node.fields:
        if not _first_of_its_name(env, "field", f.name, f.span, spans, _first_help):
            continue
        fields[f.name] = env.resolve_type(f.type)
    return fields


def _signature(env: ModuleEnv, sym: Sym, node: n.FnDecl | n.HostFn) -> None:
    seen: dict[str, Span] = {}
    params = []
    for p in node.params:  # a duplicate keeps its place: arguments are positional
        _first_of_its_name(env, "parameter", p.name, p.span, seen, _first_param_help)
        params.append(env.resolve_type(p.type))
    sym.params = tuple(params)
    sym.ret = VOID if node.ret is None else env.resolve_type(node.ret, void_ok=True)


def _first_help(first: Span) -> str:
    return f"the first declaration is at line {first.line}"


def _first_param_help(first: Span) -> str:
    return f"the first is at line {first.line}, column {first.col}"


def _first_of_its_name(
    env: ModuleEnv,
    what: str,
    name: str,
    span: Span,
    seen: dict[str, Span],
    where: Callable[[Span], str],
) -> bool:
    """Refuse a reserved name; report a second declaration of `name` (E0210)
    and say False, else remember this one and say True."""
    if name.startswith("__"):
        reserved(env, name, span)
    first = seen.get(name)
    if first is not None:
        related = ((first, "the first declaration"),)
        env.error("E0210", f"{what} `{name}` is declared twice", span, where(first), related)
        return False
    seen[name] = span
    return True


def contains_host(t: Type, envs: dict[str, ModuleEnv], seen: set | None = None) -> bool:
    """Does a value of type `t` hold a host object anywhere (such values
    cannot become text or JSON)?"""
    if isinstance(t, Prim):
        return False
    if isinstance(t, HostType):
        return True
    if isinstance(t, ListType):
        return contains_host(t.elem, envs, seen)
    if isinstance(t, MapType):
        return contains_host(t.value, envs, seen)
    if isinstance(t, StructType):
        seen = seen or set()
        if t in seen:
            return False
        seen.add(t)
        env = envs.get(t.module)
        sym = env.items.get(t.name) if env else None
        return sym is not None and any(contains_host(f, envs, seen) for f in sym.fields.values())
    return False
