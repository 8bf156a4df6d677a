"""The prelude: functions and methods every Hale module has without an import.

Each native is a signature in Hale's own type notation plus its Python
implementation. The checker reads the signature (type variables T, K, V are
unified per call); the compiler either inlines `inline` — a Python expression
template over the operands `{0}`, `{1}`, … — or calls `impl`. A method's
first parameter is its receiver: `String.split` is `fn(String, String) ->
List<String>`, called as `s.split(",")`.

Natives see only Hale values (int, str, bool, list, dict, Json data,
StructValue) and raise `Fault` for a runtime error; they never hand a Python
object back into Hale.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from hale_lang import meter
from hale_lang.fault import Fault
from hale_lang.numbers import parse_decimal, short_text, text_cost

from .plain import JsonRefused, _Plain, json_text, parse_json, to_plain
from .values import StructValue

__all__ = [
    "MUTATING",
    "NATIVES",
    "Native",
    "StructValue",
    "json_text",
    "natives_named",
    "to_plain",
]


def to_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return meter.int_to_text(value)
    return json_text(value)


_DIGITS = frozenset("0123456789")


def _to_int(s: str) -> int:
    """An optional sign, then ASCII digits: nothing else, no spaces."""
    digits = s[1:] if s[:1] in ("+", "-") else s
    if not digits or not _DIGITS.issuperset(digits):
        raise Fault("E0405", f"cannot read `{_clip(s)}` as an Int", _TO_INT_HELP)
    if len(digits) <= 18:
        return int(s)
    value = parse_decimal(s)
    meter.current().charge_ns(text_cost(value))
    return meter.current().built(value)


_TO_INT_HELP = (
    "an Int is written as ASCII digits with an optional `+` or `-`; `.trim()` spaces first"
)


def _clip(s: str, width: int = 40) -> str:
    return s if len(s) <= width else s[: width - 3] + "..."


def _format(template: str, *args: object) -> str:
    """`format("{} of {}", a, b)`: each `{}` takes the next argument; `{{`
    and `}}` are literal braces. Nothing else is interpreted."""
    out, i, it = [], 0, iter(args)
    while i < len(template):
        two = template[i : i + 2]
        if two in ("{{", "}}"):
            out.append(two[0])
            i += 2
        elif two == "{}":
            try:
                out.append(to_string(next(it)))
            except StopIteration:
                raise Fault("E0406", "format has more `{}` than arguments") from None
            i += 2
        else:
            out.append(template[i])
            i += 1
    if next(it, _END) is not _END:
        raise Fault("E0406", "format has more arguments than `{}`")
    return _text("".join(out)) if len(out) > 64 or len(template) > 64 else "".join(out)


_END = object()


def _built(value, per: int):
    """A String or List a native built: charged a step per `per` of its
    length, and counted when big."""
    if len(value) >= per:
        m = meter.current()
        m.charge(len(value) // per)
        m.built(value)
    return value


def _text(s: str) -> str:
    return _built(s, meter.STR_PER_STEP)


def _list(xs: list) -> list:
    return _built(xs, meter.LIST_PER_STEP)


def _json_parse(text: str) -> object:
    meter.current().charge(len(text) // meter.STR_PER_STEP)
    try:
        value = parse_json(text)
    except JsonRefused as e:
        raise Fault("E0407", f"invalid JSON: {e}") from None
    except ValueError as e:
        raise Fault("E0407", f"invalid JSON: {e}") from None
    return meter.current().built(value) if len(text) >= meter.STR_PER_STEP else value


def _range(a: int, b: int) -> list[int]:
    """`range(a, b)` as a value: one step per element, so a huge range ends
    in E0404 (or E0417) before it is built."""
    count = b - a
    if count <= 0:
        return []
    m = meter.current()
    m.charge(count)
    m.before(count * 36)
    return m.built(list(range(a, b)))


def _replace(s: str, old: str, new: str) -> str:
    if len(new) > len(old):  # the result's size is known before it is built
        meter.current().before(len(s) + s.count(old) * (len(new) - len(old)) if old else 0)
        if not old:
            meter.current().before((len(s) + 1) * len(new) + len(s))
    return _text(s.replace(old, new))


def _join(xs: list, sep: str) -> str:
    if len(xs) > 1 and (len(sep) > 64 or len(xs) >= meter.LIST_PER_STEP):
        meter.current().before(sum(map(len, xs)) + len(sep) * (len(xs) - 1))
    return _text(sep.join(xs))


def _upper(s: str) -> str:
    return _text(s.upper())


def _lower(s: str) -> str:
    return _text(s.lower())


def _trim(s: str) -> str:
    return _text(s.strip())


def _chars(s: str) -> list[str]:
    meter.current().before(len(s) * 8)
    return _list(list(s))


def _keys(m: dict) -> list:
    return _list(list(m))


def _values(m: dict) -> list:
    return _list(list(m.values()))


def _reversed(xs: list) -> list:
    return _list(xs[::-1])


def _split(s: str, sep: str) -> list[str]:
    if not sep:
        raise Fault(
            "E0416",
            "split needs a separator that is not empty",
            "`.chars()` splits a string into its characters",
        )
    pieces = s.split(sep)
    if len(pieces) >= meter.LIST_PER_STEP:
        meter.current().before(len(s) + len(pieces) * 56)
    return _list(pieces)


def _list_pop(xs: list) -> object:
    if not xs:
        raise Fault("E0402", "pop from an empty list")
    return xs.pop()


def _list_remove(xs: list, i: int) -> object:
    if not 0 <= i < len(xs):
        raise Fault("E0402", f"index {short_text(i)} out of range for a list of length {len(xs)}")
    return xs.pop(i)


def _list_insert(xs: list, i: int, v: object) -> None:
    if not 0 <= i <= len(xs):
        raise Fault("E0402", f"index {short_text(i)} out of range for a list of length {len(xs)}")
    xs.insert(i, v)
    if not len(xs) % meter.GROWTH:
        meter.grew(xs)


def _list_index_of(xs: list, v: object) -> int:
    return xs.index(v) if v in xs else -1


def _map_get(m: dict, k: object) -> object:
    try:
        return m[k]
    except KeyError:
        raise Fault("E0403", f"no key {key_text(k)} in map") from None


def key_text(k: object) -> str:
    """A map key as a message shows it: JSON, clipped."""
    if type(k) is int:
        return short_text(k)
    if type(k) is bool:
        return "true" if k else "false"
    return json.dumps(_clip(str(k), 60), ensure_ascii=False)


def _map_insert(m: dict, k: object, v: object) -> None:
    m[k] = v
    if not len(m) % meter.GROWTH:
        meter.grew(m)


def _map_remove(m: dict, k: object) -> None:
    m.pop(k, None)


def _json_get(j: object, key: str) -> object:
    if not isinstance(j, dict):
        raise Fault("E0408", f"cannot get `{key}` from a JSON {_json_kind(j)}")
    if key not in j:
        raise Fault("E0403", f"no key {json.dumps(key)} in JSON object")
    return j[key]


def _json_at(j: object, i: int) -> object:
    if not isinstance(j, list):
        raise Fault("E0408", f"cannot index a JSON {_json_kind(j)} by position")
    if not 0 <= i < len(j):
        raise Fault(
            "E0402", f"index {short_text(i)} out of range for a JSON list of length {len(j)}"
        )
    return j[i]


def _json_kind(j: object) -> str:
    if j is None:
        return "null"
    if isinstance(j, bool):
        return "bool"
    if isinstance(j, int):
        return "int"
    if isinstance(j, float):
        return "float"
    if isinstance(j, str):
        return "string"
    if isinstance(j, list):
        return "list"
    return "object"


def _json_as(kind: str, check: Callable[[object], bool]) -> Callable[[object], object]:
    def convert(j: object) -> object:
        if not check(j):
            raise Fault("E0408", f"expected a JSON {kind}, found a JSON {_json_kind(j)}")
        return j

    return convert


def _json_len(j: object) -> int:
    if isinstance(j, (list, dict, str)):
        return len(j)
    raise Fault("E0408", f"a JSON {_json_kind(j)} has no length")


def _json_keys(j: object) -> list[str]:
    return _list(list(_json_as("object", lambda v: isinstance(v, dict))(j)))


def _to_json(value: object) -> object:
    p = _Plain()
    plain = p.convert(value, 0)
    m = meter.current()
    m.before(p.size * 4)
    m.charge(p.size // meter.STR_PER_STEP)
    return m.built(plain)


def _slice(xs, a: int, b: int):
    if not 0 <= a <= b <= len(xs):
        what = f"{short_text(a)}..{short_text(b)}"
        raise Fault("E0402", f"slice {what} out of range for length {len(xs)}")
    part = xs[a:b]
    return _text(part) if type(part) is str else _list(part)


def _sorted_copy(xs: list) -> list:
    if len(xs) >= meter.LIST_PER_STEP:  # n log n comparisons
        meter.current().charge(len(xs) * len(xs).bit_length() // meter.LIST_PER_STEP)
    try:
        return _list(sorted(xs))
    except TypeError:
        raise Fault("E0409", "only lists of Int or of String can be sorted") from None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True, slots=True)
class Native:
    name: str  # "len", or "<Receiver>.<method>" such as "String.split"
    sig: str  # Hale notation: "fn(String, String) -> List<String>"
    impl: Callable[..., object]
    inline: str | None = None  # a Python expression over {0}, {1}, …
    variadic: bool = False  # extra arguments of any type after the fixed ones


NATIVES: list[Native] = [
    # --- functions -----------------------------------------------------------
    Native("len", "fn(String) -> Int", len, "len({0})"),
    Native("len", "fn(List<T>) -> Int", len, "len({0})"),
    Native("len", "fn(Map<K, V>) -> Int", len, "len({0})"),
    Native("len", "fn(Json) -> Int", _json_len),
    Native("to_string", "fn(T) -> String", to_string),
    Native("to_int", "fn(String) -> Int", _to_int),
    Native("min", "fn(Int, Int) -> Int", min, "min({0}, {1})"),
    Native("max", "fn(Int, Int) -> Int", max, "max({0}, {1})"),
    Native("abs", "fn(Int) -> Int", abs, "abs({0})"),
    Native("range", "fn(Int, Int) -> List<Int>", _range),
    Native("format", "fn(String) -> String", _format, variadic=True),
    Native("json_parse", "fn(String) -> Json", _json_parse),
    Native("json_str", "fn(T) -> String", json_text),
    Native("to_json", "fn(T) -> Json", _to_json),
    # --- String ----------------------------------------------------------------
    Native("String.len", "fn(String) -> Int", len, "len({0})"),
    Native("String.contains", "fn(String, String) -> Bool", str.__contains__, "({1} in {0})"),
    Native("String.starts_with", "fn(String, String) -> Bool", str.startswith),
    Native("String.ends_with", "fn(String, String) -> Bool", str.endswith),
    Native("String.find", "fn(String, String) -> Int", str.find),
    Native("String.split", "fn(String, String) -> List<String>", _split),
    Native("String.trim", "fn(String) -> String", _trim),
    Native("String.replace", "fn(String, String, String) -> String", _replace),
    Native("String.to_int", "fn(String) -> Int", _to_int),
    Native("String.to_upper", "fn(String) -> String", _upper),
    Native("String.to_lower", "fn(String) -> String", _lower),
    Native("String.slice", "fn(String, Int, Int) -> String", _slice),
    Native("String.chars", "fn(String) -> List<String>", _chars),
    # --- List ------------------------------------------------------------------
    Native("List.len", "fn(List<T>) -> Int", len, "len({0})"),
    Native("List.push", "fn(List<T>, T) -> Void", list.append, "{0}.append({1})"),
    Native("List.pop", "fn(List<T>) -> T", _list_pop),
    Native("List.insert", "fn(List<T>, Int, T) -> Void", _list_insert),
    Native("List.remove", "fn(List<T>, Int) -> T", _list_remove),
    Native("List.contains", "fn(List<T>, T) -> Bool", list.__contains__, "({1} in {0})"),
    Native("List.index_of", "fn(List<T>, T) -> Int", _list_index_of),
    Native("List.slice", "fn(List<T>, Int, Int) -> List<T>", _slice),
    Native(
        "List.concat",
        "fn(List<T>, List<T>) -> List<T>",
        lambda a, b: _list(a + b),
        f"(_r if len(_r := {{0}} + {{1}}) < {meter.LIST_PER_STEP} else _concat(_r))",
    ),
    Native("List.sorted", "fn(List<T>) -> List<T>", _sorted_copy),
    Native("List.reversed", "fn(List<T>) -> List<T>", _reversed),
    Native("List.join", "fn(List<String>, String) -> String", _join),
    # --- Map -------------------------------------------------------------------
    Native("Map.len", "fn(Map<K, V>) -> Int", len, "len({0})"),
    Native("Map.get", "fn(Map<K, V>, K) -> V", _map_get),
    Native("Map.get_or", "fn(Map<K, V>, K, V) -> V", dict.get, "{0}.get({1}, {2})"),
    Native("Map.contains_key", "fn(Map<K, V>, K) -> Bool", dict.__contains__, "({1} in {0})"),
    Native("Map.insert", "fn(Map<K, V>, K, V) -> Void", _map_insert),
    Native("Map.remove", "fn(Map<K, V>, K) -> Void", _map_remove),
    Native("Map.keys", "fn(Map<K, V>) -> List<K>", _keys),
    Native("Map.values", "fn(Map<K, V>) -> List<V>", _values),
    # --- Json ------------------------------------------------------------------
    Native("Json.get", "fn(Json, String) -> Json", _json_get),
    Native("Json.at", "fn(Json, Int) -> Json", _json_at),
    Native("Json.has", "fn(Json, String) -> Bool", lambda j, k: isinstance(j, dict) and k in j),
    Native("Json.len", "fn(Json) -> Int", _json_len),
    Native("Json.keys", "fn(Json) -> List<String>", _json_keys),
    Native("Json.kind", "fn(Json) -> String", _json_kind),
    Native("Json.is_null", "fn(Json) -> Bool", lambda j: j is None),
    Native("Json.as_int", "fn(Json) -> Int", _json_as("int", _is_int)),
    Native(
        "Json.as_string", "fn(Json) -> String", _json_as("string", lambda v: isinstance(v, str))
    ),
    Native("Json.as_bool", "fn(Json) -> Bool", _json_as("bool", lambda v: isinstance(v, bool))),
    Native(
        "Json.as_list", "fn(Json) -> List<Json>", _json_as("list", lambda v: isinstance(v, list))
    ),
    Native(
        "Json.as_map",
        "fn(Json) -> Map<String, Json>",
        _json_as("object", lambda v: isinstance(v, dict)),
    ),
]


# The methods that change their receiver (refused on a constant, E0312).
MUTATING = frozenset(
    {"List.push", "List.pop", "List.insert", "List.remove", "Map.insert", "Map.remove"}
)


def natives_named(name: str) -> list[Native]:
    """The overloads of one native, in the order the checker tries them."""
    return _BY_NAME.get(name, [])


_BY_NAME: dict[str, list[Native]] = {}
for _native in NATIVES:
    _BY_NAME.setdefault(_native.name, []).append(_native)
