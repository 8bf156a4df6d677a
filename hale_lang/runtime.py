"""What generated code calls at run time, and how its failures become diagnostics.

Generated code runs in a namespace holding only the names `base_namespace`
puts there (no Python builtins): the helpers below, the natives, the struct
classes, consts and host bindings. The step budget is one shared iterator,
`_C = meter.steps(budget)`: a call that goes on to loop or call pulls a step
from it with `for _ in _C: break` (an `else` says it ran out) and every loop
pulls from it (a `while` iterates `for _ in _C`; a `for` pays in advance
through the meter, a batch at a time, or, over a List with a loop inside,
takes its items with `compress(items, _C)`, one step each), so an exhausted
budget is a StopIteration, a loop that ends early or a Fault from the meter,
and all become E0404. That costs one C-level `next` per step.

Faults are located by the line map the compiler wrote: for each traceback
frame that runs generated code, the instruction's source position
(`co_positions`) is looked up among the marked regions of that generated
line, giving the Hale span and what kind of operation failed there. The
frames, outermost first, are the Hale stack trace.
"""

from __future__ import annotations

import json
import marshal
import operator
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from typing import Any

from hale_lang.stdlib.prelude import NATIVES, StructValue, to_plain

from . import meter
from .diagnostics import Diagnostic, Fault, Frame, Span
from .limits import MAX_CALL_DEPTH, headroom
from .numbers import short_text
from .types import BOOL, INT, JSON, STRING, HostType, ListType, MapType, Prim, StructType, Type

HOOK_FRAMES = 500  # the debugger's own code runs with this much stack, at any depth

# Builtins inline templates may name; nothing else is ever in the namespace.
TEMPLATE_BUILTINS: dict[str, Any] = {"len": len, "min": min, "max": max, "abs": abs}
MAX_TRACE = 5  # frames kept at each end of a very deep stack trace


def over() -> None:
    raise Fault("E0404", "step limit exceeded", meter.STEP_HELP)


def oob(xs: object, i: int) -> None:
    what = "string" if isinstance(xs, str) else "list"
    raise Fault("E0402", f"index {short_text(i)} out of range for a {what} of length {len(xs)}")


def copy_value(v: object) -> object:
    """A deep copy of a Hale value (host objects are shared, never copied);
    a big one is charged and counted by the running call's meter."""
    t = type(v)
    if t is list:
        return meter.current().built([copy_value(x) for x in v])
    if t is dict:
        return meter.current().built({k: copy_value(x) for k, x in v.items()})
    if isinstance(v, StructValue):
        new = object.__new__(t)
        for f in v._hale_fields:
            setattr(new, "f_" + f, copy_value(getattr(v, "f_" + f)))
        return new
    return v


def json_eq(a: object, b: object) -> bool:
    """Json equality without Python's `True == 1`."""
    ta, tb = type(a), type(b)
    if ta is list:
        return tb is list and len(a) == len(b) and all(map(json_eq, a, b))
    if ta is dict:
        return tb is dict and a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in (int, float) and tb in (int, float):
        return a == b
    return ta is tb and a == b


def base_namespace() -> dict[str, Any]:
    """The helpers every program's generated code may use."""
    ns: dict[str, Any] = {
        "__builtins__": {},
        "_next": next,
        "_compress": compress,
        "_range": range,
        "_tuple": tuple,
        "_str": str,
        "_lh": operator.length_hint,
        "_over": over,
        "_oob": oob,
        "_copy": copy_value,
        "_jeq": json_eq,
        "_mul": meter.mul,
        "_floordiv": meter.floordiv,
        "_mod": meter.mod,
        "_concat": meter.concat,
        "_appended": meter.appended,
        "_appended_literal": meter.appended_literal,
        "_appended_run": meter.appended_run,
        "_NOSTEP": iter(()),  # an append countdown that is out: charge at the next
        "_grew": meter.grew,
        "_itext": meter.int_to_text,
        "_C": iter(()),
        "_AB": meter.APPEND_BATCH,
        "_M": meter.current(),
        **TEMPLATE_BUILTINS,
    }
    for name in {nat.name for nat in NATIVES}:
        for i, nat in enumerate(n for n in NATIVES if n.name == name):
            ns[native_pyname(name, i)] = nat.impl
    return ns


def native_pyname(name: str, overload: int) -> str:
    return f"N_{name.replace('.', '_')}_{overload}"


# --- values crossing the host boundary --------------------------------------------


def describe(v: object) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return "a Bool"
    if isinstance(v, int):
        return "an Int"
    if isinstance(v, str):
        return "a String"
    if isinstance(v, StructValue):
        return f"a `{v._hale_name}`"
    return f"a Python `{type(v).__name__}`"


def conforms(t: Type, v: object, structs: dict[tuple[str, str], type]) -> bool:
    """Is the Python value `v` a Hale value of type `t`?"""
    if t == INT:
        return type(v) is int
    if t == STRING:
        return type(v) is str
    if t == BOOL:
        return type(v) is bool
    if t == JSON:
        return _is_json(v)
    if isinstance(t, ListType):
        return type(v) is list and all(conforms(t.elem, x, structs) for x in v)
    if isinstance(t, MapType):
        return type(v) is dict and all(
            conforms(t.key, k, structs) and conforms(t.value, x, structs) for k, x in v.items()
        )
    if isinstance(t, StructType):
        return type(v) is structs.get((t.module, t.name))
    if isinstance(t, HostType):
        return v is not None
    return isinstance(t, Prim) and t.name == "Void" and v is None


def _exact(t: Type) -> type | None:
    """The one Python type a value of `t` has, when a type test decides it."""
    if not isinstance(t, Prim):
        return None
    return {INT: int, STRING: str, BOOL: bool}.get(t) or (type(None) if t.name == "Void" else None)


def checker(t: Type, structs: dict[tuple[str, str], type]) -> Callable[[object], bool]:
    """`conforms` for one type, decided once: the host boundary checks every result."""
    exact = _exact(t)
    if exact is not None:
        return lambda v: type(v) is exact
    return lambda v: conforms(t, v, structs)


def _is_json(v: object) -> bool:
    if v is None or type(v) in (bool, int, float, str):
        return True
    if type(v) is list:
        return all(_is_json(x) for x in v)
    if type(v) is dict:
        return all(type(k) is str and _is_json(x) for k, x in v.items())
    return False


def host_wrapper(
    fn: Callable[..., object], label: str, ret: Type, structs: dict[tuple[str, str], type]
) -> Callable[..., object]:
    """A host callable as generated code calls it: failures and ill-typed
    results become E0411 faults. A result of a primitive type is checked by
    its type alone, inline: a scheduler's tick makes a host call a schedule."""
    exact = _exact(ret)
    ok = checker(ret, structs)

    def call(*args: object) -> object:
        try:
            v = fn(*args)
        except Fault:
            raise
        except Exception as e:  # the host's bug or refusal, reported as a Hale fault
            raise Fault("E0411", f"host {label} failed: {type(e).__name__}: {e}") from None
        if type(v) is exact or ok(v):  # the type test first: it decides most results
            return v
        raise Fault(
            "E0411",
            f"host {label} returned {describe(v)}, expected `{ret}`",
            help="the host binding must return the declared type",
        )

    return call


def unbound(label: str) -> Callable[..., object]:
    def call(*args: object) -> object:
        raise Fault("E0502", f"host {label} is not bound")

    return call


# --- debug hooks ------------------------------------------------------------------


class FrameInfo:
    """What a hook sees: where execution is, and the frame's Hale locals."""

    __slots__ = ("fn", "path", "line", "col", "depth", "_raw", "_names")

    def __init__(self, site: tuple, raw: dict | None, depth: int):
        self.fn, self.path, self.line, self.col, self._names = site
        self._raw, self.depth = raw, depth

    @property
    def locals(self) -> dict[str, object]:
        raw = self._raw or {}
        return {n: raw["v_" + n] for n in self._names if "v_" + n in raw}

    def __repr__(self) -> str:
        return f"FrameInfo({self.fn} at {self.path}:{self.line}:{self.col})"


class HookBridge:
    """Between hooked generated code (`_hk.stmt/call/ret`) and the user's
    hooks object, whose methods are all optional."""

    def __init__(self, hooks: object):
        self.depth = 0
        self._stmt = getattr(hooks, "on_statement", None)
        self._call = getattr(hooks, "on_call", None)
        self._ret = getattr(hooks, "on_return", None)

    def stmt(self, site: tuple, raw: dict) -> None:
        if self._stmt is not None:
            with headroom(HOOK_FRAMES):
                self._stmt(FrameInfo(site, raw, self.depth))

    def call(self, site: tuple, raw: dict) -> None:
        self.depth += 1
        if self._call is not None:
            with headroom(HOOK_FRAMES):
                self._call(FrameInfo(site, raw, self.depth))

    def ret(self, site: tuple, value: object) -> object:
        if self._ret is not None:
            with headroom(HOOK_FRAMES):
                self._ret(FrameInfo(site, None, self.depth), value)
        self.depth -= 1
        return value


# --- faults -> diagnostics -----------------------------------------------------------


@dataclass
class LineMap:
    """Generated line -> (statement span, marked regions), for one module variant.
    Kept marshalled in the build cache and decoded only when something fails."""

    path: str
    raw: bytes
    _data: dict | None = None

    def decode(self) -> dict:
        if self._data is None:
            self._data = marshal.loads(self.raw)
        return self._data

    def locate(self, line: int, col: int, end: int) -> tuple[Span | None, str]:
        """The innermost marked region holding columns [col, end) of `line`."""
        data = self.decode()
        lines = data["lines"]
        if not 1 <= line <= len(lines):
            return None, ""
        best = None
        for c0, c1, mark in data["ranges"].get(line, ()):
            if c0 <= col and end <= c1 and (best is None or c1 - c0 < best[1] - best[0]):
                best = (c0, c1, mark)
        if best is not None:
            sp, tag = data["marks"][best[2]]
            return Span(self.path, *sp), tag
        sp = lines[line - 1]
        return (Span(self.path, *sp) if sp else None), ""


@dataclass
class CodeInfo:
    """Per generated file name: its line map and Python fn name -> Hale label."""

    linemap: LineMap
    labels: dict[str, str]


def diagnose(exc: BaseException, infos: dict[str, CodeInfo]) -> Diagnostic | None:
    """The diagnostic for an exception out of generated code; None when it
    came from a debug hook (the caller re-raises it as it is)."""
    located: list[tuple[str, Span | None, str]] = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        info = infos.get(code.co_filename)
        if info is not None:
            span, tag = _position(code, tb.tb_lasti, info.linemap)
            located.append((info.labels.get(code.co_name, code.co_name), span, tag))
        tb = tb.tb_next
    span, tag = (located[-1][1], located[-1][2]) if located else (None, "")
    if tag == "hook":
        return None
    trace = tuple(Frame(fn, sp.path, sp.line) for fn, sp, _ in located if sp is not None and fn)
    code, message, help = classify(exc, tag, sum(1 for fn, _, _ in located if fn))
    if len(trace) > 2 * MAX_TRACE:
        message += " (the trace shows its outermost and innermost calls)"
        trace = trace[:MAX_TRACE] + trace[-MAX_TRACE:]
    return Diagnostic(code, message, span, help, trace=trace)


def call_site_of(frame: Any) -> str | None:
    """`path:line:col` of the Hale expression a frame of generated code is
    running (a host method uses it to say where it was called from)."""
    infos = frame.f_globals.get("_infos")
    info = infos.get(frame.f_code.co_filename) if type(infos) is dict else None
    if not isinstance(info, CodeInfo):
        return None
    span, _ = _position(frame.f_code, frame.f_lasti, info.linemap)
    return str(span) if span is not None else None


def _position(code, lasti: int, linemap: LineMap) -> tuple[Span | None, str]:
    positions = list(code.co_positions())
    idx = lasti // 2
    if lasti < 0 or idx >= len(positions):
        return None, ""
    line, _end_line, col, end = positions[idx]
    if line is None:
        return None, ""
    return linemap.locate(line, col or 0, end if end is not None else col or 0)


def classify(exc: BaseException, tag: str, calls: int = 0) -> tuple[str, str, str | None]:
    """(code, message, help) for an exception raised where `tag` says, with
    `calls` Hale frames on the stack."""
    if isinstance(exc, Fault):
        return exc.code, exc.message, exc.help
    if isinstance(exc, StopIteration) or tag == "step":
        return "E0404", "step limit exceeded", _STEP_HELP
    if isinstance(exc, MemoryError):
        return (
            "E0417",
            "out of memory: this call built more than the machine holds",
            (meter.MEMORY_HELP),
        )
    if isinstance(exc, RecursionError):
        if calls >= MAX_CALL_DEPTH - NATIVE_FRAMES:
            return "E0410", f"calls nest deeper than {MAX_CALL_DEPTH:,} levels", _DEPTH_HELP
        return "E0418", "a value nests too deeply to compare or copy", _NESTED_HELP
    if isinstance(exc, ZeroDivisionError):
        what = "divide" if tag == "div/" else "take a remainder"
        return "E0401", f"attempt to {what} by zero", None
    if isinstance(exc, KeyError) and tag == "key":
        key = exc.args[0] if exc.args else None
        return "E0403", f"no key {json.dumps(to_plain(key))} in map", _KEY_HELP
    if isinstance(exc, NameError) and tag.startswith("const:"):
        name = tag[len("const:") :]
        return "E0413", f"constant `{name}` is used before it has a value", _CONST_HELP
    if tag.startswith("host:"):
        return "E0411", f"host {tag[5:]} failed: {type(exc).__name__}: {exc}", None
    where = f" in `{tag[7:]}`" if tag.startswith("native:") else ""
    return (
        "E0499",
        f"internal error{where}: {type(exc).__name__}: {exc}",
        "this is a bug in hale, not in your program; please report it",
    )


_STEP_HELP = meter.STEP_HELP
_DEPTH_HELP = "a function calls itself without reaching a base case, or too often: use a loop"
_NESTED_HELP = "the value nests deeper than the call stack holds; flatten it"
NATIVE_FRAMES = 64  # what natives working on a nested value may add to the Hale frames
_KEY_HELP = "check with `.contains_key(k)` first, or read with `.get_or(k, default)`"
_CONST_HELP = "a constant may use only constants (and functions using constants) defined above it"
