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

from hale_lang.diagnostics import Fault


class StructValue:
    """Base of every compiled Hale struct. Subclasses set `_hale_name`,
    `_hale_fields` (Hale field names, in declaration order) and slots named
    `f_<field>`, so no Hale field can shadow a Python attribute."""

    __slots__ = ()
    _hale_name: str = ""
    _hale_fields: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(
            getattr(self, "f_" + f) == getattr(other, "f_" + f) for f in self._hale_fields
        )

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, "f_" + f) for f in self._hale_fields))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}: {getattr(self, 'f_' + f)!r}" for f in self._hale_fields)
        return f"{self._hale_name} {{ {inner} }}"


def to_plain(value: object) -> object:
    """A Hale value as plain JSON-able Python data (structs become dicts)."""
    if isinstance(value, StructValue):
        return {f: to_plain(getattr(value, "f_" + f)) for f in value._hale_fields}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: to_plain(v) for k, v in value.items()}
    return value


def json_text(value: object) -> str:
    """Canonical JSON: sorted keys, no spaces."""
    return json.dumps(to_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def to_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json_text(value)


def _to_int(s: str) -> int:
    text = s.strip()
    if text[:1] in "+-" and text[1:].isdigit() or text.isdigit():
        return int(text)
    raise Fault("E0405", f"cannot read `{s}` as an Int")


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
    return "".join(out)


_END = object()


def _json_parse(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError as e:
        raise Fault("E0407", f"invalid JSON: {e}") from None


def _split(s: str, sep: str) -> list[str]:
    if not sep:
        raise Fault(
            "E0416",
            "split needs a separator that is not empty",
            "`.chars()` splits a string into its characters",
        )
    return s.split(sep)


def _list_pop(xs: list) -> object:
    if not xs:
        raise Fault("E0402", "pop from an empty list")
    return xs.pop()


def _list_remove(xs: list, i: int) -> object:
    if not 0 <= i < len(xs):
        raise Fault("E0402", f"index {i} out of range for a list of length {len(xs)}")
    return xs.pop(i)


def _list_insert(xs: list, i: int, v: object) -> None:
    if not 0 <= i <= len(xs):
        raise Fault("E0402", f"index {i} out of range for a list of length {len(xs)}")
    xs.insert(i, v)


def _list_index_of(xs: list, v: object) -> int:
    return xs.index(v) if v in xs else -1


def _map_get(m: dict, k: object) -> object:
    try:
        return m[k]
    except KeyError:
        raise Fault("E0403", f"no key {json.dumps(to_plain(k))} in map") from None


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
        raise Fault("E0402", f"index {i} out of range for a JSON list of length {len(j)}")
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
    return list(_json_as("object", lambda v: isinstance(v, dict))(j))


def _slice(xs, a: int, b: int):
    if not 0 <= a <= b <= len(xs):
        raise Fault("E0402", f"slice {a}..{b} out of range for length {len(xs)}")
    return xs[a:b]


def _sorted_copy(xs: list) -> list:
    try:
        return sorted(xs)
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
    Native("range", "fn(Int, Int) -> List<Int>", lambda a, b: list(range(a, b))),
    Native("format", "fn(String) -> String", _format, variadic=True),
    Native("json_parse", "fn(String) -> Json", _json_parse),
    Native("json_str", "fn(T) -> String", json_text),
    Native("to_json", "fn(T) -> Json", to_plain),
    # --- String ----------------------------------------------------------------
    Native("String.len", "fn(String) -> Int", len, "len({0})"),
    Native("String.contains", "fn(String, String) -> Bool", str.__contains__, "({1} in {0})"),
    Native("String.starts_with", "fn(String, String) -> Bool", str.startswith),
    Native("String.ends_with", "fn(String, String) -> Bool", str.endswith),
    Native("String.find", "fn(String, String) -> Int", str.find),
    Native("String.split", "fn(String, String) -> List<String>", _split),
    Native("String.trim", "fn(String) -> String", str.strip),
    Native("String.replace", "fn(String, String, String) -> String", str.replace),
    Native("String.to_int", "fn(String) -> Int", _to_int),
    Native("String.to_upper", "fn(String) -> String", str.upper),
    Native("String.to_lower", "fn(String) -> String", str.lower),
    Native("String.slice", "fn(String, Int, Int) -> String", _slice),
    Native("String.chars", "fn(String) -> List<String>", list),
    # --- List ------------------------------------------------------------------
    Native("List.len", "fn(List<T>) -> Int", len, "len({0})"),
    Native("List.push", "fn(List<T>, T) -> Void", list.append, "{0}.append({1})"),
    Native("List.pop", "fn(List<T>) -> T", _list_pop),
    Native("List.insert", "fn(List<T>, Int, T) -> Void", _list_insert),
    Native("List.remove", "fn(List<T>, Int) -> T", _list_remove),
    Native("List.contains", "fn(List<T>, T) -> Bool", list.__contains__, "({1} in {0})"),
    Native("List.index_of", "fn(List<T>, T) -> Int", _list_index_of),
    Native("List.slice", "fn(List<T>, Int, Int) -> List<T>", _slice),
    Native("List.concat", "fn(List<T>, List<T>) -> List<T>", list.__add__, "({0} + {1})"),
    Native("List.sorted", "fn(List<T>) -> List<T>", _sorted_copy),
    Native("List.reversed", "fn(List<T>) -> List<T>", lambda xs: xs[::-1]),
    Native("List.join", "fn(List<String>, String) -> String", lambda xs, sep: sep.join(xs)),
    # --- Map -------------------------------------------------------------------
    Native("Map.len", "fn(Map<K, V>) -> Int", len, "len({0})"),
    Native("Map.get", "fn(Map<K, V>, K) -> V", _map_get),
    Native("Map.get_or", "fn(Map<K, V>, K, V) -> V", dict.get, "{0}.get({1}, {2})"),
    Native("Map.contains_key", "fn(Map<K, V>, K) -> Bool", dict.__contains__, "({1} in {0})"),
    Native("Map.insert", "fn(Map<K, V>, K, V) -> Void", dict.__setitem__),
    Native("Map.remove", "fn(Map<K, V>, K) -> Void", _map_remove),
    Native("Map.keys", "fn(Map<K, V>) -> List<K>", lambda m: list(m)),
    Native("Map.values", "fn(Map<K, V>) -> List<V>", lambda m: list(m.values())),
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


def natives_named(name: str) -> list[Native]:
    """The overloads of one native, in the order the checker tries them."""
    return _BY_NAME.get(name, [])


_BY_NAME: dict[str, list[Native]] = {}
for _native in NATIVES:
    _BY_NAME.setdefault(_native.name, []).append(_native)
