"""The Python shape of Hale values the compiled code builds."""

from __future__ import annotations


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
