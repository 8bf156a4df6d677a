"""The Python shape of Hale values the compiled code builds.

Struct equality walks both values with an explicit stack, so two values of
a recursive struct type (a chain of nodes) compare at any depth.
"""

from __future__ import annotations


class StructValue:
    """Base of every compiled Hale struct. Subclasses set `_hale_name`,
    `_hale_fields` (Hale field names, in declaration order) and slots named
    `f_<field>`, so no Hale field can shadow a Python attribute."""

    __slots__ = ()
    _hale_name: str = ""
    _hale_fields: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            t = type(a)
            if t is not type(b):
                return False
            if isinstance(a, StructValue):
                stack += [(getattr(a, "f_" + f), getattr(b, "f_" + f)) for f in a._hale_fields]
            elif t is list:
                if len(a) != len(b):
                    return False
                stack += zip(a, b, strict=True)
            elif t is dict:
                if a.keys() != b.keys():
                    return False
                stack += [(a[k], b[k]) for k in a]
            elif a != b:
                return False
        return True

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, "f_" + f) for f in self._hale_fields))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}: {getattr(self, 'f_' + f)!r}" for f in self._hale_fields)
        return f"{self._hale_name} {{ {inner} }}"
