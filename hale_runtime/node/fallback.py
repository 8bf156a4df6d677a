"""The catalog the organization serves: its genome's, or the last good one's.

A genome can build (it checks and compiles) and still fail when its catalog
is made, since making it runs the genome's own functions under the sandbox's
limits (a step budget, a memory ceiling). Then the organization does not go
on with no catalog: it tries the genome the host remembered as good, then
the commits before the one that failed (first parents, at most
genome.SEARCH), and serves the first whose catalog loads, saying so in one
line. Only when none does is there no catalog, and every ask is refused as
a row naming why (node/unadmitted.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygit2

from hale_runtime.node import genome as genomes


def load_or_last_good(root: Path, folder: Path, say: Callable[[str], None]) -> Any | None:
    """The catalog of the genome at `folder`, else of the last good genome; None
    when no genome tried loads."""
    return catalog_or_why(root, folder, say)[0]


def catalog_or_why(root: Path, folder: Path, say: Callable[[str], None]) -> tuple[Any | None, str]:
    """(the catalog served, "") as `load_or_last_good` finds it, or (None, the
    first line of why the genome at `folder` does not load)."""
    from hale_runtime.catalog.load import GenomeError, load_catalog

    if not folder.is_dir():  # the host had none to give (a forge unreachable at a first start)
        first = "no genome was fetched or built here"
    else:
        try:
            return load_catalog(folder), ""
        except GenomeError as error:
            first = error.text.strip().splitlines()[0] if error.text.strip() else "?"
    for name, candidate in _candidates(root, folder):
        try:
            catalog = load_catalog(candidate)
        except (GenomeError, genomes.BuildFailed, OSError):
            continue
        say(
            f"the genome's catalog does not load ({first}); serving the last good genome {name[:7]}"
        )
        return catalog, ""
    say(f"no catalog: {first}; every ask is refused until a genome that loads lands")
    return None, first


def _candidates(root: Path, folder: Path) -> Iterator[tuple[str, Path]]:
    """(name, folder) of the genomes to fall back to, the remembered good one first."""
    kept = genomes.genomes_dir(root)
    seen = {folder.name} if folder.parent == kept else set()
    good = genomes.last_good(root)
    if good and good not in seen:
        seen.add(good)
        yield good, kept / good
    repo = pygit2.Repository(str(root))
    failed = folder.name.split("+")[0] if folder.parent == kept else ""
    try:
        start = repo.get(failed) if failed else None
        if start is None and not repo.head_is_unborn:
            start = repo.head.peel(pygit2.Commit)
    except (pygit2.GitError, ValueError):
        return
    looked = 0
    while start is not None and looked < genomes.SEARCH:
        commit = str(start.id)
        if commit not in seen:
            seen.add(commit)
            looked += 1
            try:
                yield commit, genomes.materialize(root, commit).folder
            except (pygit2.GitError, OSError, KeyError):
                pass
        start = start.parents[0] if start.parents else None
