"""What each item's check read of other modules' tables, to check again only
what an edited signature can change.

The checker reaches every table through `envs` (module path -> ModuleEnv):
an `alias::item`, a struct's fields, a host type's methods, whether a type
holds a host value. The language server hands the checker `Recording`
instead of the dict itself: reading a table through it notes
(module, item) under the item being checked now (`current`: a fn's name,
`<const>` for constant initialisers, `<header>` for the signatures the
resolver reads before any body), and listing a table's items (a "did you
mean") notes (module, "*"). So each checked module keeps, by item, the set
of (module, item) its check read.

When a module's interface changes, the names whose entries changed are
known (`changed`); an importer, directly or not, whose recorded reads miss
them all needs no check at all, and one where only function bodies read
them needs those bodies checked again (incremental.py), not the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..resolver import ModuleEnv

Reads = dict[str, set[tuple[str, str]]]  # item ("<header>", "<const>", fn name) -> reads

WHOLE = "*"


class _Items:
    """A table's items (or an item's members, `owner` set), noting each one read."""

    __slots__ = ("_items", "_module", "_rec", "_owner")

    def __init__(self, items: dict, module: str, rec: Recording, owner: str = ""):
        self._items, self._module, self._rec, self._owner = items, module, rec, owner

    def _note(self, name: str) -> None:
        if self._owner:
            name = f"{self._owner}.{name}"
        self._rec.bucket.add((self._module, name))

    def _view(self, found: Any) -> Any:
        if self._owner or found is None or not hasattr(found, "fields"):
            return found
        return self._rec.sym(found, self._module)

    def __getitem__(self, name: str) -> Any:
        self._rec.bucket.add((self._module, f"{self._owner}.{name}" if self._owner else name))
        return self._view(self._items[name])

    def get(self, name: str, default: Any = None) -> Any:
        self._rec.bucket.add((self._module, f"{self._owner}.{name}" if self._owner else name))
        found = self._items.get(name)
        if found is None:
            return default
        if self._owner or not hasattr(found, "fields"):
            return found
        return self._rec.sym(found, self._module)

    def __contains__(self, name: object) -> bool:
        self._note(str(name))
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        self._note(WHOLE)
        return iter(self._items)

    def __len__(self) -> int:
        self._note(WHOLE)
        return len(self._items)

    def keys(self):
        self._note(WHOLE)
        return self._items.keys()

    def values(self):
        self._note(WHOLE)
        return self._items.values()

    def items(self):
        self._note(WHOLE)
        return self._items.items()


class _Sym:
    """Another module's item as a check sees it: its members noted one by
    one (`Slot.due`), all of them when listed (`Slot.*`)."""

    __slots__ = ("_sym", "fields")

    def __init__(self, sym: Any, module: str, rec: Recording):
        self._sym = sym
        self.fields = _Items(sym.fields, module, rec, sym.name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sym, name)


class _Env:
    """A module's table as another module's check sees it: its items noted."""

    __slots__ = ("_env", "items")

    def __init__(self, env: ModuleEnv, rec: Recording):
        self._env = env
        self.items = _Items(env.items, env.path, rec)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


class Recording:
    """The tables by module path, as the checker reads them (see the docstring).

    The views (_Env, _Sym) hold no state of their own beyond what they wrap,
    so each is made once per table or item and kept while that very object
    is the one in `envs` (a check builds many thousands of lookups)."""

    def __init__(self, envs: dict[str, ModuleEnv]):
        self.envs = envs
        self.current = "<header>"
        self.reads: Reads = {}
        self.bucket: set[tuple[str, str]] = set()  # reads[current], where notes go
        self._envs: dict[str, tuple[ModuleEnv, _Env]] = {}
        self._syms: dict[int, tuple[Any, _Sym]] = {}

    def start(self) -> Reads:
        """Begin recording one module's check; the reads it makes, by item."""
        self.reads = {}
        self.enter("<header>")
        return self.reads

    def enter(self, item: str, reads: Reads | None = None) -> None:
        """Note what follows under `item` (of `reads`, else of the module's)."""
        if reads is not None:
            self.reads = reads
        self.current = item
        self.bucket = self.reads.setdefault(item, set())

    def reading(self, sym: Any) -> None:
        """The checker is about to check this const or fn (checker.check_module's `on_item`)."""
        self.enter("<const>" if sym.kind == "const" else sym.name)

    def view(self, env: ModuleEnv) -> _Env:
        kept = self._envs.get(env.path)
        if kept is None or kept[0] is not env:
            kept = self._envs[env.path] = (env, _Env(env, self))
        return kept[1]

    def sym(self, sym: Any, module: str) -> _Sym:
        kept = self._syms.get(id(sym))
        if kept is None or kept[0] is not sym:
            if len(self._syms) > 50_000:  # items of tables long replaced
                self._syms.clear()
            kept = self._syms[id(sym)] = (sym, _Sym(sym, module, self))
        return kept[1]

    def __getitem__(self, path: str) -> _Env:
        return self.view(self.envs[path])

    def get(self, path: str, default: Any = None) -> Any:
        env = self.envs.get(path)
        return default if env is None else self.view(env)

    def __setitem__(self, path: str, env: ModuleEnv) -> None:
        self.envs[path] = env

    def __contains__(self, path: object) -> bool:
        return path in self.envs

    def pop(self, path: str, default: Any = None) -> Any:
        self._envs.pop(path, None)
        return self.envs.pop(path, default)


Moved = dict[str, tuple[set[str], set[str]]]  # module -> (members moved, items moved)


def changed(old: tuple, new: tuple) -> tuple[set[str], set[str]]:
    """What moved between two interfaces (analysis.interface): the members
    (`Slot.late`: a struct's field, a host type's method) that differ, of
    items alike otherwise, and the items that differ in more (kind, type,
    parameters, result), appeared or went."""
    a = {entry[0]: entry for entry in old}
    b = {entry[0]: entry for entry in new}
    members, items = set(), set()
    for name in a.keys() | b.keys():
        x, y = a.get(name), b.get(name)
        if x == y:
            continue
        if x is None or y is None or x[:5] != y[:5]:
            items.add(name)
            continue
        mx, my = {m[0]: m for m in x[5]}, {m[0]: m for m in y[5]}
        members |= {f"{name}.{m}" for m in mx.keys() | my.keys() if mx.get(m) != my.get(m)}
    return members, items


def whole() -> tuple[set[str], set[str]]:
    return set(), {WHOLE}


def hits(reads: Reads, moved: Moved) -> set[str]:
    """The items whose recorded reads touch what moved: an item read (its
    kind, type or signature) that moved; a member read that moved; every
    member listed (`Slot.*`) when any moved; a whole table listed when
    anything in it moved."""
    out = set()
    for item, found in reads.items():
        for module, name in found:
            entry = moved.get(module)
            if entry is not None and _touches(name, *entry):
                out.add(item)
                break
    return out


def _touches(name: str, members: set[str], items: set[str]) -> bool:
    if WHOLE in items or name == WHOLE:
        return True
    owner, dot, member = name.partition(".")
    if owner in items:
        return True
    if not dot:
        return False
    if member == WHOLE:
        return any(m.startswith(owner + ".") for m in members)
    return name in members
