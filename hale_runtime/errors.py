"""The runtime's one tree of errors: `HaleRuntimeError`, and `Refused` under it.

A verb catches `HaleRuntimeError` and prints its message as one line
(`hale: <message>`, exit 1). `Refused` is input the runtime will not take:
a folder that is no project, a row that does not fit its kind, a call the
head will not make, an admission the catalog refuses. The other branches
are the stores failing (the record, memory, the nerves): an organization
stops for those, and never for a refusal.

This module imports nothing, so every layer can raise from it.
"""

from __future__ import annotations


class HaleRuntimeError(Exception):
    """Something the runtime says in one line to whoever asked."""


class Refused(HaleRuntimeError):
    """Input the runtime will not take; the message says why and writes nothing."""


def one_line(error: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
