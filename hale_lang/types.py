"""The types of Hale, as the checker computes them and the compiler reads them.

Types are small immutable values compared by equality. `ERROR` stands for
"already reported": it is compatible with everything, so one mistake gives
one diagnostic rather than a cascade.
"""

from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base of every type; each kind prints itself as Hale source writes it."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Prim(Type):
    name: str  # Int, String, Bool, Void, Json

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ListType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"List<{self.elem}>"


@dataclass(frozen=True, slots=True)
class MapType(Type):
    key: Type
    value: Type

    def __str__(self) -> str:
        return f"Map<{self.key}, {self.value}>"


@dataclass(frozen=True, slots=True)
class StructType(Type):
    """A struct declared in Hale; `module` is the declaring module's path."""

    module: str
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class HostType(Type):
    """An opaque type a package declares with `host type` and the host binds."""

    module: str
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class TypeVar(Type):
    """A placeholder in a native's signature (T, K, V), unified at each call."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ErrorType(Type):
    def __str__(self) -> str:
        return "<error>"


INT = Prim("Int")
STRING = Prim("String")
BOOL = Prim("Bool")
VOID = Prim("Void")
JSON = Prim("Json")
ERROR = ErrorType()

PRIMITIVES: dict[str, Type] = {t.name: t for t in (INT, STRING, BOOL, VOID, JSON)}


def assignable(target: Type, value: Type) -> bool:
    """May a value of type `value` be stored where `target` is expected?"""
    if target == value or isinstance(target, ErrorType) or isinstance(value, ErrorType):
        return True
    if isinstance(target, ListType) and isinstance(value, ListType):
        return assignable(target.elem, value.elem) and assignable(value.elem, target.elem)
    if isinstance(target, MapType) and isinstance(value, MapType):
        return (
            assignable(target.key, value.key)
            and assignable(value.key, target.key)
            and assignable(target.value, value.value)
            and assignable(value.value, target.value)
        )
    return False
