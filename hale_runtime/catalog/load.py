"""Loading the catalog from a genome, and caching its document by content.

`load_catalog(root)` builds every `.hl` file under `dna/` (so an error
anywhere in the genome is reported, with what it imports from `vendor/`),
binds the `WorkflowCatalog` host type, calls `workflows(catalog)` in
`dna/org/workflows.hl`, and seals what the calls built. A syntax, type or
runtime error raises GenomeError carrying the rendered diagnostics.

`load_document(root)` is the same, as the catalog's JSON document, kept in
`$HALE_CACHE_DIR/catalog/<key>.json`. The key hashes every genome source
(`dna/**/*.hl`, `vendor/**/*.hl`), the toolchain's version and the
modification stamps of the code that builds and binds it, so a warm run
reads one file and imports neither the language nor lark.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hale_runtime import errors

if TYPE_CHECKING:
    from hale_runtime.catalog.catalog import Catalog

ENTRY = "dna/org/workflows.hl"
ENTRY_FN = "workflows"
HOST_KEY = "vendor/dna/mod.hl::WorkflowCatalog"
_CODE = Path(__file__).resolve().parents[2]  # the toolchain's source tree


class GenomeError(errors.Refused):
    """The genome does not build or run; `text` is the rendered diagnostics."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def genome_files(root: Path) -> list[str]:
    """Every `.hl` file of the genome proper (under `dna/`), sorted."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "dna").rglob("*.hl"))


def load_catalog(root: Path) -> Catalog:
    """Build the genome and return its sealed Catalog (or raise GenomeError)."""
    from hale_lang.build import build, compile_entries
    from hale_lang.diagnostics import HaleError

    WorkflowCatalog = _host_type()
    entries = genome_files(root)
    if ENTRY not in entries:
        raise GenomeError(f"error: {ENTRY} is missing; `hale dna upgrade` writes it again")
    host = WorkflowCatalog()
    try:
        compiled = compile_entries(root, entries)  # every error in the genome
        if any(d.is_error for d in compiled.diagnostics):
            raise HaleError([d for d in compiled.diagnostics if d.is_error])
        program = build(root, [ENTRY], bindings={HOST_KEY: WorkflowCatalog})
        returned = program.call(ENTRY, ENTRY_FN, host)
    except HaleError as e:
        raise GenomeError(_render(e, root)) from None
    from hale_runtime.engine.budget import budget_refusal

    refused = budget_refusal(root)
    if refused:
        raise GenomeError(refused)
    catalog = host.seal(ENTRY)
    catalog.failed = returned if isinstance(returned, str) else ""
    return catalog


def _host_type() -> type:
    from hale_runtime.catalog.binding import WorkflowCatalog

    return WorkflowCatalog


def _render(e: Exception, root: Path) -> str:
    """The diagnostics of a HaleError, each quoting its source line."""
    from hale_lang.diagnostics import SourceMap, render_all

    sources = getattr(e, "sources", None)
    if sources is None:
        sources = SourceMap()
        for d in e.diagnostics:
            if d.span is not None and d.span.path not in sources._lines:
                _add_source(sources, root, d.span.path)
    return render_all(e.diagnostics, sources)


def _add_source(sources, root: Path, path: str) -> None:
    try:
        sources.add(path, (root / path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        sources.add(path, "")


def load_document(root: Path) -> dict[str, Any]:
    """The catalog's document, from the cache when the genome is unchanged."""
    key = cache_key(root)
    file = cache_dir() / "catalog" / f"{key}.json"
    cached = _read_cached(file)
    if cached is not None:
        return cached
    from hale_runtime.catalog.document import document

    doc = document(load_catalog(root))
    _write_atomic(file, json.dumps(doc, sort_keys=True))
    return doc


def _read_cached(file: Path) -> dict[str, Any] | None:
    """A cached document, or None when there is none (or it is unreadable)."""
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cache_dir() -> Path:
    if os.environ.get("HALE_CACHE_DIR"):
        return Path(os.environ["HALE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hale"


def cache_key(root: Path) -> str:
    h = hashlib.sha256()
    for folder in ("dna", "vendor"):
        for path in sorted((root / folder).rglob("*.hl")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    for path in _code_files():
        st = path.stat()
        h.update(f"{path.name}:{st.st_mtime_ns}:{st.st_size}\0".encode())
    return h.hexdigest()[:32]


def _code_files() -> list[Path]:
    """The toolchain code whose change may change a catalog."""
    return sorted(_CODE.glob("hale_lang/*.py")) + sorted(_CODE.glob("hale_runtime/catalog/*.py"))


def _write_atomic(file: Path, text: str) -> None:
    """Write the cache entry whole or not at all; a cache that cannot be
    written only costs the next run a build."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, file)
    except OSError:
        return
