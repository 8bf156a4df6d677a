"""The workflow catalog: definitions bound whole from the genome.

    from hale_runtime.catalog import load_catalog, Refused
    catalog = load_catalog(root)          # build dna/org/workflows.hl; GenomeError if it fails
    bound = catalog.bind("close-month")   # newest revision; Refused(reason) if admission refuses
    bound = catalog.bind("close-month", 1, inputs={"period": "2026-11"})
    bound.definition.steps[i].members     # Leaf | Child; bound.child(i, key) for a child's tree

Imports are lazy so `hale dna definitions` on a warm cache stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hale_runtime.catalog.binding import WorkflowCatalog
    from hale_runtime.catalog.catalog import Bound, Catalog, Refused
    from hale_runtime.catalog.load import GenomeError, load_catalog, load_document

_WHERE = {
    "Bound": "catalog",
    "Catalog": "catalog",
    "Refused": "catalog",
    "WorkflowCatalog": "binding",
    "GenomeError": "load",
    "load_catalog": "load",
    "load_document": "load",
}

__all__ = [
    "Bound",
    "Catalog",
    "GenomeError",
    "Refused",
    "WorkflowCatalog",
    "load_catalog",
    "load_document",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(name)
    from importlib import import_module

    return getattr(import_module(f"hale_runtime.catalog.{_WHERE[name]}"), name)
