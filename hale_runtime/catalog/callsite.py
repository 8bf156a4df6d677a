"""Where in the genome a host method was called from: `path:line:col`.

A host method runs inside the Python code the compiler generated for a Hale
module. The call site is the innermost frame of generated code on the
stack, mapped back to its `.hl` span by `hale_lang.runtime.call_site_of`
(the compiler's line map). This is the one place that glue lives;
`override` lets Python callers (tests, tools) say where calls come from.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_override: list[str] = []


@contextmanager
def override(site: str) -> Iterator[None]:
    """Attribute every call made inside the block to `site`."""
    _override.append(site)
    try:
        yield
    finally:
        _override.pop()


def call_site() -> str:
    """The `path:line:col` of the Hale call running now, or "<python>"."""
    if _override:
        return _override[-1]
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        site = _hale_site(frame)
        if site:
            return site
        frame = frame.f_back
    return "<python>"


def _hale_site(frame: FrameType) -> str | None:
    """The Hale position of a frame running generated Hale code, else None."""
    try:
        from hale_lang.runtime import call_site_of
    except ImportError:
        return None
    return call_site_of(frame)
