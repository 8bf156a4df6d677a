"""Which genome a node serves: the forge's default branch, built before it runs.

With a forge (the record's remote, or `hale.forge`), the genome is a commit:
the tip of the forge's default branch, fetched into
`refs/dna/remotes/<forge>/genome` (`git fetch <forge> +HEAD:…`: the remote's
HEAD names its default branch). The commit's `dna/` and `vendor/` trees are
written to `.git/hale/genomes/<commit>/` (to a temporary folder renamed into
place, so a half-written genome is never taken for one) and built there, so
the work tree is never touched. A commit that built is remembered in
`.git/hale/genomes/good`; one that does not build leaves the node on that
one. Without a forge the node serves the work tree itself (`hale dna dev`
on a project that has no remote).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pygit2

from hale_runtime.node.git import GitFailed, git, text

GENOME_TREES = ("dna", "vendor")


@dataclass(frozen=True)
class Genome:
    commit: str  # the commit served ("" for a work tree with no commit)
    folder: Path  # where it is built from
    work_tree: bool = False

    @property
    def label(self) -> str:
        short = self.commit[:7] if self.commit else "(no commit)"
        return f"{short} (work tree)" if self.work_tree else short


class BuildFailed(Exception):
    """The genome does not build; `text` is the diagnostics."""

    def __init__(self, commit: str, text: str):
        super().__init__(text)
        self.commit, self.text = commit, text


def forge_of(root: Path, record_remote: str | None, timeout_s: float) -> str | None:
    """The forge's remote name: `hale.forge`, else the record's remote."""
    try:
        named = text(root, ["config", "--get", "hale.forge"], timeout_s)
    except GitFailed:
        named = ""
    return named or record_remote


def tracking(forge: str) -> str:
    return f"refs/dna/remotes/{forge}/genome"


def fetch_tip(root: Path, forge: str, timeout_s: float) -> str:
    """Fetch the forge's default branch; its tip commit (GitFailed when unreachable)."""
    git(root, ["fetch", "-q", "--no-tags", forge, f"+HEAD:{tracking(forge)}"], timeout_s)
    return text(root, ["rev-parse", "--verify", tracking(forge)], timeout_s)


def genomes_dir(root: Path) -> Path:
    repo = pygit2.Repository(str(root))
    return Path(repo.path) / "hale" / "genomes"


def work_tree_genome(root: Path) -> Genome:
    repo = pygit2.Repository(str(root))
    head = "" if repo.head_is_unborn else str(repo.head.target)
    return Genome(head, Path(root), work_tree=True)


def materialize(root: Path, commit: str) -> Genome:
    """The genome of `commit`, written out under `.git/hale/genomes/`."""
    target = genomes_dir(root) / commit
    if not target.is_dir():
        repo = pygit2.Repository(str(root))
        tree = repo.get(commit).peel(pygit2.Tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
        for name in GENOME_TREES:
            if name in tree:
                _write_tree(repo, tree[name], scratch / name)
        try:
            scratch.rename(target)
        except OSError:  # another process wrote it first: theirs is as good
            shutil.rmtree(scratch, ignore_errors=True)
    return Genome(commit, target)


def _write_tree(repo: pygit2.Repository, entry: pygit2.Object, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for item in repo.get(entry.id):
        if item.type_str == "tree":
            _write_tree(repo, item, folder / item.name)
        elif item.type_str == "blob":
            (folder / item.name).write_bytes(repo.get(item.id).data)


def build(genome: Genome) -> None:
    """Check and compile every `.hl` file of the genome; BuildFailed with the diagnostics."""
    from hale_lang.build import compile_entries
    from hale_lang.diagnostics import render_all
    from hale_runtime.catalog.load import genome_files

    if not (genome.folder / "dna" / "org" / "main.hl").is_file():
        raise BuildFailed(genome.commit, "error: dna/org/main.hl is missing")
    compiled = compile_entries(genome.folder, genome_files(genome.folder))
    if compiled.errors:
        shown = [d for d in compiled.diagnostics if d.is_error]
        raise BuildFailed(genome.commit, render_all(shown, compiled.sources))


def last_good(root: Path) -> str | None:
    """The last commit that built here, if any."""
    try:
        commit = (genomes_dir(root) / "good").read_text().strip()
    except OSError:
        return None
    return commit if (genomes_dir(root) / commit).is_dir() else None


def remember_good(root: Path, commit: str) -> None:
    folder = genomes_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "good.tmp").write_text(commit + "\n")
    (folder / "good.tmp").replace(folder / "good")
