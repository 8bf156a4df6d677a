"""Work that may run long says how far it is, to whoever shows it.

A layer below the command line (the record's chain reading many commits
from git: a fresh clone's first read, an index rebuilt) wraps the work in
`steps(label, total)` and calls what it answers with the steps done. The
command line installs a shower (cli/progress.py draws a bar on a terminal);
with none installed, as in a node or a test, the calls cost nothing. This
module imports nothing of hale's, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Told = Callable[[int], None]  # the steps done so far
Shower = Callable[[str, "int | None"], AbstractContextManager[Told]]

_shower: Shower | None = None


def show_with(shower: Shower | None) -> None:
    """Show long work through `shower` from now on (None: show nothing)."""
    global _shower
    _shower = shower


def _nothing(done: int) -> None:
    return None


@contextmanager
def steps(label: str, total: int | None) -> Iterator[Told]:
    """Around work of `total` steps (None: unknown; 0: too little to show):
    a callable taking the steps done, drawn by the installed shower if any."""
    if _shower is None or total == 0:
        yield _nothing
        return
    with _shower(label, total) as told:
        yield told
