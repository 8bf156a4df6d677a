"""Each function body's last few check results, kept by what the check read.

A body's check depends on its own tree, its module's table, and what it
read of other modules' tables (deps.py records that, item by item). While
the tree and the table are the very objects they were, the check gives the
same diagnostics whenever each thing it read is again what it was: so
each result is kept with the reads' values at the time, taken from the
modules' interfaces (analysis.interface): an item's kind, type and
signature; a member's entry (a field, a method); a whole item's entry when
its members were listed; a whole interface when the table was listed.

An edit to a signature that every module reads, and the edit undoing it
(an author trying a parameter and taking it back, a typo and its fix),
then costs one lookup a body instead of its check: the body is checked
when its module is next asked for positions (analysis.Genome.index), so
the types its expressions carry match the genome again before hover,
completion or rename read them.

Keys are compared, not hashed: the values hold types, and an entry is
tried only against the few results kept for the same body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import nodes as n
from ..diagnostics import Diagnostic
from ..resolver import ModuleEnv
from .deps import WHOLE

KEEP = 3  # results kept a body: the signature before, after, and one more
LIMIT = 50_000  # bodies remembered before all are dropped (a genome's worth)
_GONE = ("<no module>",)  # the value of any read of a module not checked
_UNSEEN = object()


class _Result:
    __slots__ = ("node", "env", "reads", "values", "diags")

    def __init__(self, node, env, reads, values, diags) -> None:
        self.node, self.env, self.reads = node, env, reads
        self.values, self.diags = values, diags


class FnMemo:
    """Results by body (see the docstring); `interface(module)` answers a
    module's interface as last checked, or None when it is not checked.

    What each read sees now is worked out once a refresh (`begin`): a
    module's interface no longer moves once a module importing it is being
    checked (imports first), and `moved` forgets a module checked anew."""

    def __init__(self, interface: Callable[[str], tuple | None]) -> None:
        self.interface = interface
        self._kept: dict[int, list[_Result]] = {}
        self._bodies: dict[int, set[int]] = {}  # id(table) -> the bodies kept in it
        self._now: dict[str, dict[str, Any]] = {}  # module -> name -> what a read sees
        self._entries: dict[str, dict[str, tuple]] = {}  # module -> its interface by name

    def forget(self, env: ModuleEnv, node: n.FnDecl | None = None) -> None:
        """Drop what is kept of a body replaced by an edit (`node`), or of
        every body of a table checked anew: neither is asked for again, and
        each result holds its tree and its table."""
        bodies = self._bodies.get(id(env), set())
        for key in [id(node)] if node is not None else list(bodies):
            kept = self._kept.get(key)
            if kept and kept[0].env is env and (node is None or kept[0].node is node):
                del self._kept[key]
            bodies.discard(key)
        if node is None:
            self._bodies.pop(id(env), None)

    def begin(self) -> None:
        self._now, self._entries = {}, {}

    def moved(self, module: str) -> None:
        self._now.pop(module, None)
        self._entries.pop(module, None)

    def find(
        self, env: ModuleEnv, node: n.FnDecl
    ) -> tuple[list[Diagnostic], tuple[tuple[str, str], ...]] | None:
        """(the diagnostics, the reads) of a kept check of this very body in
        this very table whose reads are what they were, else None."""
        kept = self._kept.get(id(node))
        if not kept:
            return None
        reads, now = None, ()
        for i, r in enumerate(kept):
            if r.node is not node or r.env is not env:
                continue
            if r.reads is not reads:  # the kept checks of a body mostly read alike
                reads, now = r.reads, self._values(r.reads)
            if now == r.values:
                if i:
                    kept.insert(0, kept.pop(i))
                return r.diags, r.reads
        return None

    def keep(
        self, env: ModuleEnv, node: n.FnDecl, reads: set[tuple[str, str]], diags: list
    ) -> None:
        """Remember one body's check: its diagnostics and what it read."""
        if len(self._kept) > LIMIT:
            self._kept.clear()
            self._bodies.clear()
        ordered = tuple(sorted(reads))
        kept = [r for r in self._kept.get(id(node), ()) if r.node is node and r.env is env]
        for r in kept:
            if r.reads == ordered:
                ordered = r.reads  # one object, so `find` works its values out once
                break
        result = _Result(node, env, ordered, self._values(ordered), list(diags))
        self._kept[id(node)] = [result, *kept[: KEEP - 1]]
        self._bodies.setdefault(id(env), set()).add(id(node))

    def _values(self, reads: tuple[tuple[str, str], ...]) -> tuple:
        now, out = self._now, []
        for m, name in reads:
            seen = now.get(m)
            if seen is None:
                seen = now[m] = {}
            found = seen.get(name, _UNSEEN)
            if found is _UNSEEN:
                found = seen[name] = self._read(m, name)
            out.append(found)
        return tuple(out)

    def _read(self, module: str, name: str) -> Any:
        """What a check reading `name` of `module` sees now (the docstring)."""
        iface = self.interface(module)
        if iface is None:
            return _GONE
        if name == WHOLE:
            return iface
        owner, dot, member = name.partition(".")
        entries = self._entries.get(module)
        if entries is None:
            entries = self._entries[module] = {e[0]: e for e in iface}
        entry = entries.get(owner)
        if entry is None or not dot:
            return None if entry is None else entry[:5]
        if member == WHOLE:
            return entry
        return next((m for m in entry[5] if m[0] == member), None)
