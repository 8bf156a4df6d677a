"""The language server's model of one genome, kept checked edit by edit.

The genome is every `.hl` file under the root's `dna/` folder, every file
the editor has open under the root, and everything they import (vendor/dna,
the standard library). `refresh` brings it up to date after an edit:

1. Load the whole genome through the ordinary Loader, open files read from
   the editor's buffers. The loader parses through `LatestTrees`, which
   keeps one tree per module and hands it back while the module's text is
   unchanged, so only an edited module is parsed again, and only the items
   the edit touched (reparse.py).
2. Check again, in load order (imports first), each module whose tree is
   new or whose imports resolve to other modules, and each module that
   imports one whose interface moved: what an importer's check reads of
   a module (its items' names, kinds and types) changed in this refresh,
   or the module no longer loads, or one of its own imports moved (a type
   reached through it may have other fields now). `checker.check_module`
   checks it against the tables the other modules keep from their last
   check. A dropped module's table goes first, so its importers see a
   failed import, which is silent as in `hale check`.

When only function bodies changed (their headers alike), only those
bodies are checked again (incremental.py); a body whose reads are again
what a kept check of it saw takes that check's diagnostics (memo.py), and
is checked again for its expressions' types when `index` is next asked. An edit inside a body thus
costs one parse of the edited item and one check of its body; an edit to a signature adds a check of each module that imports
it, directly or not (a build system's early cutoff, at the first step).

A buffer that does not parse is not handed to the loader: the genome goes
on with the module's last text that parsed (so its importers are not
re-checked against nothing while the author types), and that module's
diagnostics are its syntax errors until it parses again. A module's
position index (index.py) is built when first asked for after each check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import nodes as n
from ..cache import ParseCache
from ..checker import check_module
from ..diagnostics import Diagnostic, HaleError
from ..limits import item_error
from ..loader import STD_PREFIX, STDLIB_DIR, Loader
from ..resolver import ModuleEnv
from ..roots import hl_files
from .deps import Moved, Reads, Recording, changed, hits, whole
from .incremental import annotate, recheck_bodies, recheck_fns
from .index import Index
from .memo import FnMemo
from .reparse import Reparser


class LatestTrees(ParseCache):
    """A parse cache holding one tree per module, its latest text's; a new
    text is parsed in chunks, again only where it changed (reparse.py)."""

    def __init__(self) -> None:
        super().__init__()
        self._latest: dict[str, tuple[str, n.Module]] = {}
        self._chunks = Reparser()

    def parse(self, text: str, path: str) -> n.Module:
        kept = self._latest.get(path)
        if kept is not None and kept[0] == text:
            return kept[1]
        tree = self._chunks.parse(text, path)
        self._latest[path] = (text, tree)
        return tree


@dataclass
class Checked:
    """A module as last checked: its tree, the text it was parsed from, its table."""

    module: n.Module
    text: str
    env: ModuleEnv
    diagnostics: list[Diagnostic]
    interface: tuple  # what its importers can see of it (`interface`)
    reads: Reads = field(default_factory=dict)  # what its check read of other tables
    index: Index | None = None
    stale: set[str] = field(default_factory=set)  # fns whose types are a kept check's (memo.py)


# The organization's own admission of a genome root (the catalog's and the
# budget's refusals): the host hands it in (hale_runtime's `hale lsp` passes
# catalog/admission.py's), since the language does not import the runtime.
Admission = Callable[[Path], list[Diagnostic]]


class Genome:
    """Every module of one genome root, loaded and checked (see the docstring)."""

    def __init__(self, root: Path, admission: Admission | None = None):
        self.root = root.resolve()
        self.admission = admission
        self.trees = LatestTrees()
        self.latest: dict[str, str] = {}  # open files' texts, by module path
        self.buffers: dict[str, str] = {}  # the last of each that parsed
        self.broken: dict[str, list[Diagnostic]] = {}  # open files that don't: their errors
        self.envs: dict[str, ModuleEnv] = {}
        self.checked: dict[str, Checked] = {}
        self.imports: dict[str, dict[str, str]] = {}
        self.loading: dict[str, list[Diagnostic]] = {}  # the loader's, by module
        self._files: list[str] | None = None
        self.rechecked: list[str] = []  # the modules the last refresh checked
        self.edited: set[str] = set()  # modules edited, opened or closed since then
        self.virtual: dict[str, str] = {}  # buffers with no file (`untitled:`): path -> URI
        self.organization: dict[str, list[Diagnostic]] | None = None  # `admit`'s, by module
        self.recording = Recording(self.envs)  # the tables, as checks read them (deps.py)
        self._depths: dict[int, tuple] = {}  # id(item) -> (item, its span, its depth error)
        self.memo = FnMemo(self._interface)  # bodies' kept checks (memo.py)

    # --- what the editor tells us ---------------------------------------------------

    def module_path(self, file: Path) -> str | None:
        """A file's module path under this root (`std/…` for the stdlib), or None."""
        file = file.resolve()
        if file.is_relative_to(STDLIB_DIR.resolve()):
            return STD_PREFIX + file.relative_to(STDLIB_DIR.resolve()).as_posix()
        if file.is_relative_to(self.root):
            return file.relative_to(self.root).as_posix()
        return None

    def file(self, path: str) -> Path:
        if path.startswith(STD_PREFIX):
            return STDLIB_DIR / path[len(STD_PREFIX) :]
        return self.root / path

    def uri(self, path: str) -> str:
        """The URI the editor knows a module by."""
        return self.virtual.get(path) or self.file(path).as_uri()

    def edit(self, path: str, text: str) -> None:
        """An open file's text (opened or changed); `refresh` takes it in."""
        self.latest[path] = text
        self.edited.add(path)
        try:
            self.trees.parse(text, path)
        except HaleError as e:
            self.broken[path] = e.diagnostics
            return
        self.broken.pop(path, None)
        self.buffers[path] = text

    def close(self, path: str) -> None:
        """The editor closed the file: the file on disk counts again."""
        self.latest.pop(path, None)
        self.buffers.pop(path, None)
        self.broken.pop(path, None)
        self.edited.add(path)

    def files_changed(self) -> None:
        """Files appeared or went on disk: list the genome again."""
        self._files = None

    # --- bringing it up to date -----------------------------------------------------

    def entries(self) -> list[str]:
        if self._files is None:
            dna = self.root / "dna"
            found = hl_files(dna) if dna.is_dir() else []
            self._files = [p.relative_to(self.root).as_posix() for p in found]
        extra = [p for p in (*self.buffers, *self.broken) if not p.startswith(STD_PREFIX)]
        return sorted(set(self._files) | set(extra))

    def refresh(self) -> set[str]:
        """Load and check what changed; the modules whose diagnostics may differ."""
        program = Loader(self.root, self.trees, self.buffers).load(*self.entries())
        before = set(self.checked) | set(self.loading)
        # module -> the names of its table that changed (deps.WHOLE: all of them)
        moved: Moved = {p: whole() for p in set(self.checked) - set(program.modules)}
        for path in moved:  # dropped: their tables go first
            self.memo.forget(self.checked[path].env)
            del self.checked[path]
            self.envs.pop(path, None)
        self.rechecked = []
        self.memo.begin()
        for path, module in program.modules.items():  # imports first
            imports = program.imports.get(path, {})
            old = self.checked.get(path)
            alike = old is not None and self.imports.get(path) == imports
            hit = hits(old.reads, moved) if alike and moved else set()
            if alike and old.module is module:
                if not hit:
                    continue  # nothing it read moved
                if "<header>" not in hit and "<const>" not in hit:
                    diags = recheck_fns(
                        old.env,
                        hit,
                        old.diagnostics,
                        self.recording,
                        old.reads,
                        self.memo,
                        old.stale,
                    )
                    if diags is not None:
                        old.diagnostics, old.index = diags, None
                        self.rechecked.append(path)
                        continue
            elif alike and not hit:
                # only bodies changed, headers alike: check those bodies (incremental.py)
                text = program.texts[path]
                diags = recheck_bodies(
                    old.module,
                    old.text,
                    old.diagnostics,
                    old.env,
                    module,
                    text,
                    self.recording,
                    old.reads,
                    self.memo,
                    old.stale,
                )
                if diags is not None:
                    new = Checked(module, text, old.env, diags, old.interface, old.reads)
                    new.stale = old.stale
                    self.checked[path] = new
                    self.rechecked.append(path)
                    continue
            if old is not None:
                self.memo.forget(old.env)  # its table is made anew
            rec = self.recording
            reads = rec.start()
            diags = check_module(module, imports, rec, self._depth_errors, rec.reading)
            env = self.envs[path]
            new = Checked(module, program.texts[path], env, diags, interface(env), reads)
            self.checked[path] = new
            self.memo.moved(path)
            self.rechecked.append(path)
            names = whole() if old is None else changed(old.interface, new.interface)
            if names[0] or names[1]:
                moved[path] = names  # what its importers read of it, directly or not
        self.imports = program.imports
        loading = _by_module(program.diagnostics)
        shown = {p for p in {*loading, *self.loading} if loading.get(p) != self.loading.get(p)}
        self.loading = loading
        gone = before - set(self.checked) - set(loading)
        edited, self.edited = self.edited, set()
        return {*self.rechecked, *shown, *self.broken, *gone, *edited}

    def admit(self) -> set[str]:
        """Run the organization's own admission on the genome as saved (the
        catalog's refusals and the budget's, as the host's `admission` finds
        them: Hale code of the genome runs, so only on open and save); the
        modules whose diagnostics this changed. With no admission, nothing."""
        if self.admission is None:
            return set()
        before = self.organization or {}
        self.organization = _by_module(self.admission(self.root))
        return {
            p for p in {*before, *self.organization} if before.get(p) != self.organization.get(p)
        }

    def _interface(self, path: str) -> tuple | None:
        checked = self.checked.get(path)
        return None if checked is None else checked.interface

    def _depth_errors(self, module: n.Module) -> list[Diagnostic]:
        """limits.depth_errors, remembered for each item while it is the same
        object at the same place (an item moved by reparse.py is walked again)."""
        out, kept = [], {}
        for item in module.items:
            hit = self._depths.get(id(item))
            if hit is None or hit[0] is not item or hit[1] != item.span:
                hit = (item, item.span, item_error(item))
            kept[id(item)] = hit
            if hit[2] is not None:
                out.append(hit[2])
        self._depths.update(kept)
        if len(self._depths) > 4 * len(kept) + 10_000:  # drop items long gone
            self._depths = kept
        return out

    # --- what the features read -----------------------------------------------------

    def text(self, path: str) -> str:
        """A module's text as the editor has it, else as last checked, else on disk."""
        if path in self.latest:
            return self.latest[path]
        if path in self.checked:
            return self.checked[path].text
        try:
            return self.file(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def diagnostics(self, path: str) -> list[Diagnostic]:
        """A module's diagnostics now: its syntax errors while it does not parse."""
        if path in self.broken:
            return self.broken[path]
        checked = self.checked.get(path)
        found = self.loading.get(path, []) + (checked.diagnostics if checked else [])
        return found + (self.organization or {}).get(path, [])

    def index(self, path: str) -> Index | None:
        checked = self.checked.get(path)
        if checked is None:
            return None
        if checked.stale:  # the types of these bodies' expressions first (memo.py)
            annotate(checked.env, checked.stale, self.recording)
            checked.stale.clear()
            checked.index = None
        if checked.index is None:
            checked.index = Index(checked.module, checked.text, checked.env)
        return checked.index

    def indexes(self, paths: Iterable[str] | None = None) -> list[Index]:
        return [i for p in (paths or list(self.checked)) if (i := self.index(p)) is not None]


def interface(env: ModuleEnv) -> tuple:
    """Everything an importer's check reads of a module: each item's name,
    kind and types (a struct's fields, a host type's methods)."""
    out = []
    for name, sym in env.items.items():
        if sym.kind == "hosttype":
            members = tuple((m, s.params, s.ret) for m, s in sym.fields.items())
        else:
            members = tuple(sym.fields.items())
        out.append((name, sym.kind, sym.type, sym.params, sym.ret, members))
    return tuple(out)


def _by_module(diags: list[Diagnostic]) -> dict[str, list[Diagnostic]]:
    out: dict[str, list[Diagnostic]] = {}
    for d in diags:
        if d.span is not None:
            out.setdefault(d.span.path, []).append(d)
    return out
