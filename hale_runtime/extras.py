"""The optional parts of hale, and the one line a verb says when one is missing.

`pip install hale` brings the language and the organism on SQLite; the rest
are extras (pyproject.toml): `postgres` (memory and nerves on PostgreSQL),
`tui` (the debugger), `lsp` (the language server), `all` for every one.
`need` looks for the extra's module without importing it (a spec lookup,
so it costs nothing when it is there) and raises ExtraMissing, a
HaleRuntimeError the verbs print as one line naming the install.
"""

from __future__ import annotations

import importlib.util

from hale_runtime.errors import HaleRuntimeError

# extra -> (its modules, what needs it)
EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "postgres": (("psycopg",), "memory and nerves on PostgreSQL"),
    "tui": (("textual",), "the debugger (`hale dna debug`)"),
    "lsp": (("pygls", "lsprotocol"), "the language server (`hale lsp`)"),
}


class ExtraMissing(HaleRuntimeError):
    """A verb needs an extra this install lacks."""


def missing(extra: str) -> str:
    """The line saying the extra is missing, or "" when it is installed."""
    modules, what = EXTRAS[extra]
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"{what} needs the `{extra}` extra: pip install 'hale[{extra}]'"
    return ""


def need(extra: str) -> None:
    """Raise ExtraMissing unless `extra` is installed."""
    said = missing(extra)
    if said:
        raise ExtraMissing(said)
