"""Hale values as plain JSON data and JSON text, and JSON text as values.

One walk (`_Plain`) turns a value into plain data: structs become objects,
map keys become JSON's strings as Hale spells them (`true`, `12`), and it
measures as it goes, so a value nested deeper than MAX_NESTING levels is
refused (E0418) before anything recursive in Python sees it, and the size
of the text is known before it is written (the meter refuses one past the
ceiling). JSON text is written by the json module, except when an Int is
too big for CPython's decimal conversion; then by `_write`, which prints
those through numbers.int_text.

Reading JSON refuses what is not a Hale value: NaN, Infinity, numbers that
overflow a float, and nesting past MAX_NESTING levels.
"""

from __future__ import annotations

import json
import math

from hale_lang import meter
from hale_lang.fault import Fault
from hale_lang.numbers import int_text, parse_decimal

from .values import StructValue

MAX_NESTING = 100
_SMALL = 1 << 13000  # CPython prints smaller Ints itself
NESTING_HELP = "flatten the value, or pass its deeper parts as separate values"


def nesting_fault(what: str = "a value") -> Fault:
    return Fault("E0418", f"{what} nests deeper than {MAX_NESTING} levels", NESTING_HELP)


class _Plain:
    def __init__(self) -> None:
        self.size = 0  # characters of the compact JSON text
        self.big = False  # an Int CPython cannot print

    def convert(self, v: object, depth: int) -> object:
        t = type(v)
        if t is str:
            self.size += len(v) + 2
            return v
        if t is int:
            self.size += v.bit_length() // 3 + 2
            if not -_SMALL < v < _SMALL:
                self.big = True
            return v
        if t is bool or v is None or t is float:
            self.size += 5
            return v
        if depth >= MAX_NESTING:
            raise nesting_fault()
        if t is list:
            self.size += len(v) + 2
            return [self.convert(x, depth + 1) for x in v]
        if t is dict:
            self.size += 2 * len(v) + 2
            return {self.key(k): self.convert(x, depth + 1) for k, x in v.items()}
        if isinstance(v, StructValue):
            fields = v._hale_fields
            self.size += sum(len(f) + 4 for f in fields) + 2
            return {f: self.convert(getattr(v, "f_" + f), depth + 1) for f in fields}
        return v  # a host value: the caller decides what it prints as

    def key(self, k: object) -> str:
        if type(k) is str:
            self.size += len(k) + 2
            return k
        text = ("true" if k else "false") if type(k) is bool else int_text(k)
        self.size += len(text) + 2
        return text


def to_plain(value: object) -> object:
    """A Hale value as plain JSON-able Python data (structs become dicts)."""
    return _Plain().convert(value, 0)


def json_text(value: object) -> str:
    """Canonical JSON: sorted keys, no spaces."""
    p = _Plain()
    plain = p.convert(value, 0)
    m = meter.current()
    m.before(p.size)
    m.charge(p.size // meter.STR_PER_STEP)
    return m.built(dump(plain, big=p.big))


def dump(plain: object, big: bool | None = None, indent: int | None = None, default=None) -> str:
    """Plain data as JSON text: compact with sorted keys, or (with `indent`)
    pretty in insertion order, as `hale run` prints a result."""
    if big is None:
        p = _Plain()
        p.convert(plain, 0)
        big = p.big
    if not big:
        if indent is None:
            return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return json.dumps(plain, indent=indent, ensure_ascii=False, default=default)
    out: list[str] = []
    _write(plain, out, indent, 0, default)
    return "".join(out)


def _write(v: object, out: list[str], indent: int | None, level: int, default) -> None:
    t = type(v)
    if t is int:
        out.append(int_text(v))
    elif t is list or t is dict:
        items = list(v.items()) if t is dict else list(v)
        if t is dict and indent is None:
            items.sort()
        if not items:
            out.append("{}" if t is dict else "[]")
            return
        pad = "" if indent is None else "\n" + " " * (indent * (level + 1))
        out.append("{" if t is dict else "[")
        for i, item in enumerate(items):
            out.append(("," if i else "") + pad)
            if t is dict:
                out.append(
                    json.dumps(item[0], ensure_ascii=False) + (":" if indent is None else ": ")
                )
                item = item[1]
            _write(item, out, indent, level + 1, default)
        out.append(
            ("" if indent is None else "\n" + " " * (indent * level)) + ("}" if t is dict else "]")
        )
    else:
        out.append(json.dumps(v, ensure_ascii=False, default=default))


# --- reading JSON -------------------------------------------------------------------


class JsonRefused(ValueError):
    """JSON text that is not a Hale value."""


def parse_json(text: str) -> object:
    """JSON text as plain data; raises JsonRefused (a ValueError) for text
    that is not JSON or not a Hale value."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise JsonRefused(f"it nests deeper than {MAX_NESTING} levels") from None
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
        value = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, parse_int=_parse_int
        )
    if _too_deep(value):
        raise JsonRefused(f"it nests deeper than {MAX_NESTING} levels")
    return value


def _no_constant(name: str) -> object:
    raise JsonRefused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused(f"the number {text} is out of range")
    return value


def _parse_int(text: str) -> int:
    if len(text) > 4000:
        from hale_lang.numbers import text_cost

        value = parse_decimal(text)
        meter.current().charge_ns(text_cost(value))
        return value
    return int(text)


def _too_deep(value: object) -> bool:
    """Does `value` nest deeper than MAX_NESTING levels? (No recursion.)"""
    level, depth = [value], 0
    while True:
        inner: list = []
        for v in level:
            if type(v) is list:
                inner.append(v)
            elif type(v) is dict:
                inner.append(list(v.values()))
        if not inner:
            return False
        if depth >= MAX_NESTING:
            return True
        level = [x for c in inner for x in c]
        depth += 1
