"""Loading: an entry file and everything it imports, transitively.

`import "P" as a;` names a module by its path from the genome root: the file
`P.hl`, or `P/mod.hl` for a package folder. Paths under `std/` come from the
standard library shipped with hale instead.

One rule keeps a program hermetic: an import path is refused by its form
alone (absolute, an empty, `.` or `..` part, a control character), before
the disk is touched, so whether a file exists outside can't be probed; a
path of a good form is then resolved, symlinks followed, and must still lie
inside its base folder (the genome root, or the stdlib folder for `std/`).
The same check guards every file the loader or the build cache reads.

Modules are loaded depth-first;
an import that reaches a module still being loaded is a cycle, reported at
the import that closes it with the whole chain. Every module that loads is
kept, even one with syntax errors (the parser recovers from them), so one
run reports every syntax error in every file and still checks what parsed.
A loader given `texts` reads those modules from them instead of their files
(a language server's unsaved editor buffers).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import nodes as n
from .cache import ParseCache
from .diagnostics import Diagnostic, HaleError, SourceMap
from .gc_pause import collector_paused
from .resources import stdlib_dir

STDLIB_DIR = stdlib_dir().resolve()
STD_PREFIX = "std/"


@dataclass
class LoadedProgram:
    """Parsed modules by path, in load order (dependencies first)."""

    root: Path
    entry: str
    modules: dict[str, n.Module] = field(default_factory=dict)
    # module path -> {alias -> imported module path}, for the checker
    imports: dict[str, dict[str, str]] = field(default_factory=dict)
    sources: SourceMap = field(default_factory=SourceMap)
    texts: dict[str, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Loader:
    def __init__(
        self,
        root: Path | str,
        cache: ParseCache | None = None,
        texts: Mapping[str, str] | None = None,
    ):
        self.root = Path(root).resolve()
        self.cache = cache if cache is not None else ParseCache.default()
        # module path -> text, read instead of the file (an editor's unsaved buffers)
        self.texts: Mapping[str, str] = texts or {}

    def load(self, *entries: str) -> LoadedProgram:
        """Load one or more entry modules (paths relative to the root)."""
        program = LoadedProgram(self.root, entries[0] if entries else "")
        with collector_paused():  # trees that all live on: nothing for it to collect
            for entry in entries:
                self._load(program, self._normalise(entry), [], None)
        return program

    def _normalise(self, entry: str) -> str:
        p = Path(entry)
        if p.is_absolute():
            p = p.resolve().relative_to(self.root)
        return p.as_posix()

    def _load(self, program: LoadedProgram, path: str, stack: list[str], via) -> None:
        if path in program.modules or path in stack:
            return
        text = self._read(program, path, via)
        if text is None:
            return
        program.texts[path] = text
        program.sources.add(path, text)
        try:
            module = self.cache.parse(text, path)  # kept with its syntax errors, if any
        except HaleError as e:  # a cache that keeps no broken tree (the language server's)
            program.diagnostics.extend(e.diagnostics)
            return
        program.diagnostics.extend(module.errors)
        stack.append(path)
        aliases: dict[str, str] = {}
        for item in module.items:
            if isinstance(item, n.Import):
                refused = refusal(item.path)
                target = None if refused else self.resolve(item.path)
                if target is None and not refused and leaves_by_symlink(self.root, item.path):
                    refused = SYMLINK_OUT
                if refused or target is None:
                    program.diagnostics.append(_bad_import(item, refused))
                    continue
                if target in stack:
                    program.diagnostics.append(_cycle(item, stack, target))
                    continue
                aliases[item.name] = target
                self._load(program, target, stack, item)
        stack.pop()
        program.imports[path] = aliases
        program.modules[path] = module

    def resolve(self, import_path: str) -> str | None:
        """The module path an import names, or None when no file exists there
        (or the path is refused: see `refusal`)."""
        if refusal(import_path):
            return None
        for candidate in (f"{import_path}.hl", f"{import_path}/mod.hl"):
            if self.file(candidate) is not None:
                return candidate
        return None

    def file(self, path: str) -> Path | None:
        """The file of a module path, when it is a file inside its base folder."""
        return module_file(self.root, path)

    def _read(self, program: LoadedProgram, path: str, via) -> str | None:
        if path in self.texts:
            return self.texts[path]
        file = self.file(path)
        try:
            if file is None:
                raise FileNotFoundError(path)
            return file.read_text(encoding="utf-8-sig")  # a byte order mark is dropped
        except (OSError, UnicodeDecodeError) as e:
            span = via.span if via is not None else None
            reason = "is not UTF-8" if isinstance(e, UnicodeDecodeError) else "cannot be read"
            program.diagnostics.append(Diagnostic("E0101", f"`{path}` {reason}", span))
            return None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def refusal(import_path: str) -> str | None:
    """Why an import path's form is refused, or None when it may be looked up."""
    rel = import_path[len(STD_PREFIX) :] if import_path.startswith(STD_PREFIX) else import_path
    if _CONTROL.search(import_path):
        return "holds a control character"
    if import_path.startswith("/") or rel.startswith("/"):
        return "is absolute"
    parts = rel.split("/")
    if ".." in parts:
        return "climbs out with `..`"
    if "" in parts or "." in parts:
        return "has an empty or `.` part"
    return None


def module_file(root: Path, path: str) -> Path | None:
    """The file holding module `path` (under `root`, or the stdlib for
    `std/`), resolved; None unless it is a file inside that folder."""
    if refusal(path):
        return None
    std = path.startswith(STD_PREFIX)
    base, rel = (STDLIB_DIR, path[len(STD_PREFIX) :]) if std else (root, path)
    try:
        file = (base / rel).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, an unencodable name
        return None
    if not file.is_relative_to(base) or not file.is_file():
        return None
    return file


SYMLINK_OUT = "leads out of its folder through a symlink"


def leaves_by_symlink(root: Path, path: str) -> bool:
    """Whether a module path of a good form reaches a symlink that points out
    of its base folder. Only links inside the base are read (each part is
    looked at before the next), so nothing outside is probed."""
    std = path.startswith(STD_PREFIX)
    base, rel = (STDLIB_DIR, path[len(STD_PREFIX) :]) if std else (root, path)
    for candidate in (f"{rel}.hl", f"{rel}/mod.hl"):
        p = base
        for part in candidate.split("/"):
            p = p / part
            if not p.is_symlink():
                continue
            try:
                p = p.resolve()
            except (OSError, RuntimeError):  # a symlink loop
                return False
            if not p.is_relative_to(base):
                return True
    return False


def _bad_import(item: n.Import, refused: str | None) -> Diagnostic:
    if refused == SYMLINK_OUT:
        where = "the standard library" if item.path.startswith(STD_PREFIX) else "the genome root"
        return Diagnostic(
            "E0104",
            f'import path "{item.path}" {refused}',
            item.span,
            help=f"a module is read only from inside {where}: copy it in instead of linking to it",
        )
    if refused:
        return Diagnostic(
            "E0104",
            f'import path "{item.path}" {refused}',
            item.span,
            help="an import names a module by its path from the genome root, "
            "without an empty, `.` or `..` part",
        )
    if item.path.startswith(STD_PREFIX):
        return Diagnostic("E0102", f'no module at "{item.path}"', item.span, help=_std_help())
    return Diagnostic(
        "E0102",
        f'no module at "{item.path}"',
        item.span,
        help=f"an import names `{item.path}.hl` or `{item.path}/mod.hl` under the genome root",
    )


def _std_help() -> str:
    """What the standard library holds: its modules are the only `std/` names to offer."""
    names = sorted(f"`std/{p.stem}`" for p in STDLIB_DIR.glob("*.hl"))
    if not names:
        return "the standard library has no modules: its functions are the prelude's, in every module without an import"
    return f"the standard library's modules are {', '.join(names)}"


def _cycle(item: n.Import, stack: list[str], target: str) -> Diagnostic:
    chain = " -> ".join([*stack[stack.index(target) :], target])
    return Diagnostic(
        "E0103",
        f'import cycle: "{item.path}" is already being loaded',
        item.span,
        help=f"the chain is {chain}; move what both need into a module of its own",
    )
