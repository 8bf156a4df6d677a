"""Figures a benchmark reads from running nodes: one JSON line a fact.

When HALE_DNA_FIGURES names a file, `note(what, **fields)` appends
`{"what": …, "pid": …, **fields}` to it with one `write` of an O_APPEND
file (whole lines, whichever process writes). Unset, it costs one lookup in
the environment and writes nothing: nodes in use keep no figures.
"""

from __future__ import annotations

import json
import os

ENV = "HALE_DNA_FIGURES"


def note(what: str, **fields: object) -> None:
    """Append one fact to the figures file, when one is named."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = json.dumps({"what": what, "pid": os.getpid(), **fields}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
