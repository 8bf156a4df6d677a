"""A value as Hale writes it, for a debugger's panes (the TUI's and `hale dap`'s).

Booleans are `true`/`false`, strings are quoted with JSON's escapes, lists
`[1, 2]`, maps `{"a": 1}`, structs `Name { field: value }`, a JSON null
`null`; an Int is written in full up to a size, then by its digit count.
The walk writes into a list and stops once the text passes `limit`
characters, so a huge or deeply nested value costs no more than its first
screenful; the text is then clipped with `…`. A host object shows as
`<host Type>`.
"""

from __future__ import annotations

import json

from .stdlib.values import StructValue

MAX_TEXT = 240
_BIG_INT = 10**60


def show(value: object, limit: int = MAX_TEXT) -> str:
    """`value` in Hale's syntax, at most `limit` characters."""
    out: list[str] = []
    size = [0]

    def put(s: str) -> None:
        out.append(s)
        size[0] += len(s)

    def walk(v: object, depth: int) -> None:
        if size[0] > limit:
            return
        cls = type(v)
        if cls is bool:
            put("true" if v else "false")
        elif cls is int:
            put(str(v) if -_BIG_INT < v < _BIG_INT else f"<Int of {len(str(abs(v)))} digits>")
        elif cls is str:
            put(json.dumps(v if len(v) <= limit else v[: limit + 1], ensure_ascii=False))
        elif v is None:
            put("null")
        elif cls is float:
            put(json.dumps(v))
        elif depth > 100:
            put("…")
        elif cls is list or cls is tuple:
            put("[")
            for i, item in enumerate(v):
                if i:
                    put(", ")
                walk(item, depth + 1)
                if size[0] > limit:
                    break
            put("]")
        elif cls is dict:
            put("{")
            for i, (k, item) in enumerate(v.items()):
                if i:
                    put(", ")
                walk(k, depth + 1)
                put(": ")
                walk(item, depth + 1)
                if size[0] > limit:
                    break
            put("}")
        elif isinstance(v, StructValue):
            fields = v._hale_fields
            put(f"{v._hale_name} {{" + (" " if fields else ""))
            for i, name in enumerate(fields):
                if i:
                    put(", ")
                put(f"{name}: ")
                walk(getattr(v, "f_" + name), depth + 1)
                if size[0] > limit:
                    break
            put(" }" if fields else "}")
        else:
            put(f"<host {cls.__name__}>")

    walk(value, 0)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 1] + "…"
