"""The build: load -> check -> compile, with a disk cache of the result.

`build()` is the one entry point hosts use. A build is cached under
`$HALE_CACHE_DIR`, else `$XDG_CACHE_HOME/hale`, else `~/.cache/hale`, in one
file per (toolchain version, entries and the digests of their texts, binding
names): not per genome root, so a fresh clone of a genome builds from the
cache of another clone holding the same text. The file
holds a manifest (the sha256 of every module text the build read, and what
every import resolved to), the diagnostics, and each module's marshalled
code objects with their line maps. A warm build re-reads and re-hashes the
module files and, when the manifest still matches, skips parse, check and
codegen entirely. The toolchain version hashes the sources of `hale_lang`,
the prelude and the grammar, so changing hale invalidates every entry.
Files are written to a temporary name and renamed into place; the cache
directory may be deleted at any time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import nodes as n
from .cache import ParseCache
from .compiler import Emitted, ModuleArtifact, compile_program, hooked_variants
from .diagnostics import Diagnostic, HaleError, SourceMap
from .loader import Loader, module_file
from .program import DEFAULT_STEP_BUDGET, Program
from .resources import grammar_file, package_dir, stdlib_dir

__all__ = ["Compiled", "HaleError", "Program", "build", "cache_dir", "compile_entries"]

_TOOLCHAIN: str | None = None


@dataclass
class Compiled:
    """What a build produced: every diagnostic, and the code when none is an error."""

    root: Path
    entries: list[str]
    diagnostics: list[Diagnostic]
    artifacts: list[ModuleArtifact] | None
    texts: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    @property
    def sources(self) -> SourceMap:
        return SourceMap(self.texts)


def build(
    root: Path | str,
    entries: Iterable[str],
    bindings: Mapping[str, Any] | None = None,
    step_budget: int = DEFAULT_STEP_BUDGET,
    use_cache: bool = True,
    max_memory: int | None = None,
) -> Program:
    """Load, check and compile `entries` (paths under `root`) into a Program.

    Raises HaleError with every diagnostic when any is an error; warnings
    alone don't stop a build and are kept on `Program.warnings`. With
    `bindings` (keys "<module path>::<item>"), every declared host item must
    be bound; without, only those the code calls. Every call runs under
    `step_budget` steps and `max_memory` bytes of live values (meter.py;
    None: the host's setting, HALE_MAX_MEMORY, or 64 MiB)."""
    compiled = compile_entries(root, entries, sorted(bindings or ()), use_cache)
    if compiled.errors or compiled.artifacts is None:
        err = HaleError(compiled.diagnostics)
        err.sources = compiled.sources
        raise err
    hooked = _hooked_sources(compiled)
    return Program(
        compiled.artifacts,
        compiled.sources,
        compiled.diagnostics,
        bindings,
        step_budget,
        hooked,
        max_memory,
    )


def _hooked_sources(compiled: Compiled) -> Callable[[], dict[str, Emitted]]:
    """Emits the debug-hooked variant on demand, from the same sources."""

    def make() -> dict[str, Emitted]:
        from .checker import check

        program = Loader(compiled.root).load(*compiled.entries)
        diags = program.diagnostics or check(program)
        if program.texts != compiled.texts or any(d.is_error for d in diags):
            msg = "the genome changed since this program was built"
            raise HaleError(Diagnostic("E0415", msg, None, "build it again to debug it"))
        return hooked_variants(program)

    return make


def compile_entries(
    root: Path | str,
    entries: Iterable[str],
    binding_names: Iterable[str] = (),
    use_cache: bool = True,
) -> Compiled:
    """Every diagnostic of the entries and what they import, plus the code
    when there is no error — from the cache when nothing changed."""
    root = Path(root).resolve()
    rel = [_relative(root, e) for e in entries]
    key = _key(root, rel, binding_names)
    if use_cache:
        hit = _read(key, root)
        if hit is not None:
            return hit
    compiled, manifest = _compile(root, rel)
    if use_cache:
        _write(key, compiled, manifest)
    return compiled


def _relative(root: Path, entry: str) -> str:
    p = Path(entry)
    if p.is_absolute():
        p = p.resolve().relative_to(root)
    return p.as_posix()


def _compile(root: Path, entries: list[str]) -> tuple[Compiled, dict]:
    from .checker import check

    program = Loader(root, ParseCache()).load(*entries)
    diags = _in_order(program, program.diagnostics + check(program))  # even with syntax errors
    artifacts = None if any(d.is_error for d in diags) else compile_program(program)
    imports = sorted(
        {
            item.path
            for module in program.modules.values()
            for item in module.items
            if isinstance(item, n.Import)
        }
    )
    loader = Loader(root, ParseCache())
    manifest = {
        "texts": {p: _sha(t) for p, t in program.texts.items()},
        "entries": entries,
        "imports": {i: loader.resolve(i) for i in imports},
    }
    return Compiled(root, entries, diags, artifacts, dict(program.texts)), manifest


def _in_order(program, diags: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics file by file (in the checker's order), each file's by position."""
    order = {path: i for i, path in enumerate(program.modules)}

    def key(d: Diagnostic) -> tuple[int, int, int]:
        if d.span is None:
            return (-1, 0, 0)
        return (order.get(d.span.path, -1), d.span.line, d.span.col)

    return sorted(diags, key=key)


# --- the disk cache ----------------------------------------------------------------


def cache_dir() -> Path:
    env = os.environ.get("HALE_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "hale"


def toolchain_version() -> str:
    """A digest of everything that decides what a build produces."""
    global _TOOLCHAIN
    if _TOOLCHAIN is None:
        h = hashlib.sha256(importlib.util.MAGIC_NUMBER)
        files = sorted(package_dir("hale_lang").glob("*.py")) + [
            stdlib_dir() / "prelude.py",
            grammar_file(),
        ]
        for f in files:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
        _TOOLCHAIN = h.hexdigest()
    return _TOOLCHAIN


def _key(root: Path, entries: list[str], binding_names: Iterable[str]) -> str:
    """The cache file of a build: by what the entries say, not where they
    lie, so every clone of a genome shares the build of the same text (the
    manifest then checks every file the build read, in this clone)."""
    texts = [_read_module(root, e) for e in entries]
    digests = ["-" if t is None else _sha(t) for t in texts]
    parts = [toolchain_version(), *entries, "\0", *digests, "\0", *sorted(binding_names)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _read(key: str, root: Path) -> Compiled | None:
    """The cached build, if every file it read is unchanged."""
    try:
        data = pickle.loads((cache_dir() / f"{key}.build").read_bytes())
    except FileNotFoundError:
        return None
    except Exception:  # a torn or foreign file: rebuild and overwrite it
        return None
    manifest = data["manifest"]
    texts = {}
    for path, digest in manifest["texts"].items():
        text = _read_module(root, path)
        if text is None or _sha(text) != digest:
            return None
        texts[path] = text
    for entry in manifest["entries"]:
        if entry not in texts and _read_module(root, entry) is not None:
            return None
    loader = Loader(root, ParseCache())
    if any(loader.resolve(i) != target for i, target in manifest["imports"].items()):
        return None
    return Compiled(root, manifest["entries"], data["diagnostics"], data["artifacts"], texts, True)


def _read_module(root: Path, path: str) -> str | None:
    file = module_file(root, path)
    try:
        return file.read_text(encoding="utf-8-sig") if file is not None else None
    except (OSError, UnicodeDecodeError):
        return None


def _write(key: str, compiled: Compiled, manifest: dict) -> None:
    payload = {
        "manifest": manifest,
        "diagnostics": compiled.diagnostics,
        "artifacts": compiled.artifacts,
    }
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".build")
    except OSError:  # an unwritable cache only costs speed
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, folder / f"{key}.build")
    except OSError:
        Path(tmp).unlink(missing_ok=True)
