"""A built Hale program, ready to call.

Construction runs each module's compiled code in one shared namespace
(defining its functions), makes a class per struct, binds the host items,
then evaluates the consts module by module in load order, each in
declaration order. The debug-hooked variant is compiled the first time a
hook is attached and lives in a second namespace sharing the same classes,
consts and bindings, so switching hooks on and off is a dict swap.

Every call runs under a fresh step budget; any exception out of generated
code becomes a HaleError whose diagnostic has the Hale span and stack trace
(see `runtime.diagnose`). A Python traceback never leaves `call`.
"""

from __future__ import annotations

import marshal
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from hale_lang.stdlib.prelude import StructValue

from . import meter
from .compiler import Emitted, FnMeta, HostMeta, ModuleArtifact, StructMeta, filename
from .diagnostics import Diagnostic, HaleError, SourceMap
from .limits import MAX_CALL_DEPTH, current_depth, headroom
from .runtime import (
    CodeInfo,
    HookBridge,
    LineMap,
    base_namespace,
    conforms,
    copy_value,
    describe,
    diagnose,
    host_wrapper,
    unbound,
)
from .types import (
    BOOL,
    INT,
    JSON,
    PRIMITIVES,
    STRING,
    HostType,
    ListType,
    MapType,
    StructType,
    Type,
)

DEFAULT_STEP_BUDGET = 10_000_000


class Program:
    def __init__(
        self,
        artifacts: list[ModuleArtifact],
        sources: SourceMap,
        warnings: list[Diagnostic],
        bindings: Mapping[str, Any] | None = None,
        step_budget: int = DEFAULT_STEP_BUDGET,
        hooked_sources: Callable[[], dict[str, Emitted]] | None = None,
        max_memory: int | None = None,
    ):
        self.sources, self.warnings, self.step_budget = sources, warnings, step_budget
        self.max_memory = max_memory if max_memory is not None else _ceiling_setting()
        self._artifacts = artifacts
        self._hooked_sources = hooked_sources
        self._infos: dict[str, CodeInfo] = {}
        self._fns: dict[tuple[str, str], FnMeta] = {}
        self._structs: dict[tuple[str, str], type] = {}
        self._struct_meta: dict[tuple[str, str], StructMeta] = {}
        ns = self._plain = self._ns = base_namespace()
        self._hooked: dict[str, Any] | None = None
        ns["_infos"] = self._infos  # for runtime.call_site_of
        ns["_AB"] = meter.append_batch(self.max_memory)
        for a in artifacts:
            exec(marshal.loads(a.code), ns)  # defines the module's functions only
            self._infos[filename(a.path, False)] = CodeInfo(LineMap(a.path, a.linemap), a.labels)
            self._fns.update({(f.module, f.name): f for f in a.fns})
            for s in a.structs:
                ns[s.pyname] = self._structs[(s.module, s.name)] = _struct_class(s, ns)
                self._struct_meta[(s.module, s.name)] = s
        self._bind(bindings)
        self._eval_consts()

    @property
    def modules(self) -> list[str]:
        return [a.path for a in self._artifacts]

    # --- loading ---------------------------------------------------------------

    def _bind(self, bindings: Mapping[str, Any] | None) -> None:
        """Bind every host item. One the loaded code calls but the host left
        unbound is E0501/E0502 now, at load; a declaration nothing calls may
        stay unbound (a package declares more than any one host binds)."""
        given = dict(bindings or {})
        diags: list[Diagnostic] = []
        for a in self._artifacts:
            for h in a.host_fns:
                fn = given.get(h.key)
                if callable(fn):
                    self._plain[h.pyname] = host_wrapper(fn, h.label, h.ret, self._structs)
                    continue
                self._plain[h.pyname] = unbound(h.label)
                if h.referenced:
                    diags.append(
                        _unbound(h, "E0501", f"host fn `{h.name}` is declared but not bound")
                    )
            for t in a.host_types:
                obj = given.get(t.key)
                if obj is None and any(m.referenced for m in t.methods):
                    msg = f"host type `{t.name}` is declared but not bound"
                    diags.append(
                        Diagnostic("E0502", msg, t.span, f'the host binds it as "{t.key}"')
                    )
                for m in t.methods:
                    fn = getattr(obj, m.name, None) if obj is not None else None
                    if callable(fn):
                        self._plain[m.pyname] = host_wrapper(fn, m.label, m.ret, self._structs)
                        continue
                    self._plain[m.pyname] = unbound(m.label)
                    if obj is not None:
                        msg = f"the binding of host type `{t.name}` has no method `{m.name}`"
                        diags.append(_unbound(m, "E0503", msg))
        if diags:
            raise self._error(diags)

    def _eval_consts(self) -> None:
        ns = self._plain
        for a in self._artifacts:
            for c in a.consts:
                ns[c.pyname] = self._run(ns[c.init], ())

    # --- calling -------------------------------------------------------------------

    def call(self, module: str, fn: str, *args: object) -> object:
        """Call `fn` of `module` (a module path such as "dna/org/models.hl",
        or an import path such as "vendor/dna") with Hale values."""
        meta = self.fn(module, fn)
        if len(args) != len(meta.params):
            msg = f"`{fn}` takes {len(meta.params)} argument(s) but {len(args)} were given"
            raise self._error([Diagnostic("E0412", msg, None, _params_help(meta))])
        return self._run(self._ns[meta.pyname], args)

    def call_json(self, module: str, fn: str, args: list[object]) -> object:
        """Call with JSON data, each argument converted to its parameter's type."""
        meta = self.fn(module, fn)
        if len(args) != len(meta.params):
            msg = f"`{fn}` takes {len(meta.params)} argument(s) but {len(args)} were given"
            raise self._error([Diagnostic("E0412", msg, None, _params_help(meta))])
        values = [
            self.from_json(t, a, f"argument `{p}`")
            for p, t, a in zip(meta.params, meta.param_types, args, strict=True)
        ]
        return self._run(self._ns[meta.pyname], values)

    def _run(self, func: Any, args: tuple | list) -> object:
        """Call `func` under a fresh step budget, memory meter and call-depth
        limit: the stack may hold MAX_CALL_DEPTH frames above this one (one
        per Hale call; a native takes one or two while it runs)."""
        ns = self._ns
        saved = ns["_C"]
        saved_m = ns["_M"]
        steps = ns["_C"] = meter.steps(self.step_budget)
        m = ns["_M"] = meter.Meter(steps, self.step_budget, self.max_memory)
        outer = meter.enter(m)
        if "_hk" in ns:
            ns["_hk"].depth = 0
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(current_depth() + MAX_CALL_DEPTH)
        try:
            return func(*args)
        except Exception as e:
            sys.setrecursionlimit(max(limit, current_depth() + 100))  # room to diagnose
            d = diagnose(e, self._infos)
            if d is None:  # raised by a debug hook: the debugger's own exception
                raise
            raise self._error([d]) from None
        finally:
            sys.setrecursionlimit(limit)
            ns["_C"], ns["_M"] = saved, saved_m
            meter.leave(outer)

    def fn(self, module: str, name: str) -> FnMeta:
        path = self.module_path(module)
        meta = self._fns.get((path, name))
        if meta is None:
            names = sorted(f for m, f in self._fns if m == path)
            help = f"its functions are: {', '.join(names)}" if names else None
            raise self._error([Diagnostic("E0414", f"no fn `{name}` in `{path}`", None, help)])
        return meta

    def module_path(self, module: str) -> str:
        mods = self.modules
        for candidate in (module, f"{module}.hl", f"{module}/mod.hl"):
            if candidate in mods:
                return candidate
        msg = f"no module `{module}` in this program"
        raise self._error([Diagnostic("E0414", msg, None, f"its modules are: {', '.join(mods)}")])

    def _error(self, diags: list[Diagnostic]) -> HaleError:
        err = HaleError(diags)
        err.sources = self.sources
        return err

    # --- values in and out ------------------------------------------------------------

    def const(self, module: str, name: str) -> object:
        path = self.module_path(module)
        for a in self._artifacts:
            for c in a.consts if a.path == path else ():
                if c.name == name:
                    return copy_value(self._plain[c.pyname])
        raise self._error([Diagnostic("E0414", f"no const `{name}` in `{path}`", None)])

    def new_struct(self, module: str, name: str, **fields: object) -> StructValue:
        """A struct value built by the host; fields are checked against their types."""
        key = (self.module_path(module), name)
        meta = self._struct_meta.get(key)
        if meta is None:
            raise self._error([Diagnostic("E0414", f"no struct `{name}` in `{key[0]}`", None)])
        if set(fields) != set(meta.fields):
            want = ", ".join(meta.fields)
            raise self._error([Diagnostic("E0412", f"`{name}` has the fields {want}", None)])
        for f, t in zip(meta.fields, meta.types, strict=True):
            if not conforms(t, fields[f], self._structs):
                msg = f"field `{f}` of `{name}` must be a `{t}`, not {describe(fields[f])}"
                raise self._error([Diagnostic("E0412", msg, None)])
        return self._structs[key](*(fields[f] for f in meta.fields))

    def from_json(self, ty: Type | str, data: object, where: str = "the value") -> object:
        """JSON data as a Hale value of type `ty` (a Type, or written like
        "List<Int>" or "vendor/dna/mod.hl::WorkRequest"); refuses mismatches."""
        t = self.parse_type(ty) if isinstance(ty, str) else ty
        return _FromJson(self, where).convert(t, data, "")

    def parse_type(self, text: str) -> Type:
        toks = re.findall(r"[\w/.\-]+(?:::\w+)?|[<>,]", text)
        t, rest = _parse_type(toks, self)
        if rest:
            raise self._error([Diagnostic("E0412", f"cannot read the type `{text}`", None)])
        return t

    # --- debug hooks ------------------------------------------------------------------

    def set_hooks(self, hooks: object | None) -> None:
        """Attach a hooks object (`on_statement`, `on_call`, `on_return`; each
        optional), or None to run the plain code again."""
        if hooks is None:
            self._ns = self._plain
            return
        if self._hooked is None:
            self._hooked = self._hooked_namespace()
        self._hooked["_hk"] = HookBridge(hooks)
        self._ns = self._hooked

    def _hooked_namespace(self) -> dict[str, Any]:
        if self._hooked_sources is None:
            msg = "this program was built without the sources a debugger needs"
            raise self._error([Diagnostic("E0415", msg, None, "build it with `build()`")])
        variants = self._hooked_sources()
        ns = dict(self._plain)
        ns["_locals"] = locals
        for a in self._artifacts:
            name, emitted = filename(a.path, True), variants[a.path]
            with headroom():
                code = compile(emitted.source, name, "exec", dont_inherit=True)
            exec(code, ns)
            self._infos[name] = CodeInfo(LineMap(a.path, emitted.linemap), emitted.labels)
        return ns


def _ceiling_setting() -> int:
    try:
        return meter.default_ceiling()
    except ValueError as e:
        msg = f"{meter.MEMORY_ENV} is not a memory ceiling: {e}"
        raise HaleError(Diagnostic("E0417", msg, None, "set it like 64M or 1G")) from None


def _struct_class(meta: StructMeta, ns: dict[str, Any]) -> type:
    return type(
        meta.pyname,
        (StructValue,),
        {
            "__slots__": tuple("f_" + f for f in meta.fields),
            "__init__": ns["_init_" + meta.pyname],
            "_hale_name": meta.name,
            "_hale_fields": meta.fields,
        },
    )


def _unbound(h: HostMeta, code: str, message: str) -> Diagnostic:
    help = f'the host binds it as "{h.key}"' + (f" with a method `{h.name}`" if h.owner else "")
    return Diagnostic(code, message, h.span, help)


def _params_help(meta: FnMeta) -> str:
    params = ", ".join(f"{p}: {t}" for p, t in zip(meta.params, meta.param_types, strict=True))
    return f"its parameters are ({params})"


def _parse_type(toks: list[str], program: Program) -> tuple[Type, list[str]]:
    if not toks:
        raise program._error([Diagnostic("E0412", "a type is missing", None)])
    head, rest = toks[0], toks[1:]
    if head in ("List", "Map") and rest[:1] == ["<"]:
        args, rest = [], rest[1:]
        while True:
            t, rest = _parse_type(rest, program)
            args.append(t)
            sep, rest = (rest[0], rest[1:]) if rest else (">", [])
            if sep != ",":
                break
        return (ListType(args[0]) if head == "List" else MapType(args[0], args[1])), rest
    if head in PRIMITIVES:
        return PRIMITIVES[head], rest
    module, _, name = head.rpartition("::")
    if module:
        key = (program.module_path(module), name)
        if key in program._structs:
            return StructType(*key), rest
        return HostType(*key), rest
    raise program._error([Diagnostic("E0412", f"unknown type `{head}`", None)])


class _FromJson:
    """Converts JSON data to a typed Hale value, naming where a mismatch is."""

    def __init__(self, program: Program, where: str):
        self.program, self.where = program, where

    def fail(self, t: Type, data: object, at: str) -> HaleError:
        place = f"{self.where}{' at ' + at if at else ''}"
        article = "an" if str(t)[:1] in "AEIOU" else "a"
        msg = f"{place} must be {article} `{t}`, but the JSON is {_json_desc(data)}"
        return self.program._error([Diagnostic("E0412", msg, None, _shape_help(t))])

    def convert(self, t: Type, data: object, at: str) -> object:
        if t == INT and type(data) is int or t == STRING and type(data) is str:
            return data
        if t == BOOL and type(data) is bool:
            return data
        if t == JSON:
            return copy_value(data)
        if isinstance(t, ListType) and type(data) is list:
            return [self.convert(t.elem, x, f"{at}[{i}]") for i, x in enumerate(data)]
        if isinstance(t, MapType) and type(data) is dict:
            return {
                self.key(t, k, at): self.convert(t.value, v, f"{at}.{k}") for k, v in data.items()
            }
        if isinstance(t, StructType) and type(data) is dict:
            return self.struct(t, data, at)
        raise self.fail(t, data, at)

    def key(self, t: MapType, k: str, at: str) -> object:
        if t.key == STRING:
            return k
        if t.key == INT and re.fullmatch(r"-?\d+", k):
            return int(k)
        if t.key == BOOL and k in ("true", "false"):
            return k == "true"
        raise self.fail(t.key, k, f"{at} (a key)")

    def struct(self, t: StructType, data: dict, at: str) -> StructValue:
        meta = self.program._struct_meta[(t.module, t.name)]
        missing = [f for f in meta.fields if f not in data]
        extra = [k for k in data if k not in meta.fields]
        if missing or extra:
            what = f"lacks {', '.join(missing)}" if missing else f"has no field {', '.join(extra)}"
            msg = f"{self.where}{' at ' + at if at else ''}: a `{t.name}` {what}"
            help = f"a `{t.name}` has the fields {', '.join(meta.fields)}"
            raise self.program._error([Diagnostic("E0412", msg, None, help)])
        values = [
            self.convert(ft, data[f], f"{at}.{f}")
            for f, ft in zip(meta.fields, meta.types, strict=True)
        ]
        return self.program._structs[(t.module, t.name)](*values)


def _json_desc(data: object) -> str:
    import json

    text = json.dumps(data)
    return text if len(text) <= 40 else text[:37] + "..."


def _shape_help(t: Type) -> str | None:
    if isinstance(t, HostType):
        return f"a `{t.name}` is a host value; it cannot be given as JSON"
    if isinstance(t, StructType):
        return f"give a `{t.name}` as a JSON object of its fields"
    if isinstance(t, MapType):
        return "give a map as a JSON object"
    return None
