"""Which genome a node serves: the forge's default branch, built before it runs.

With a forge (the record's remote, or `hale.forge`), the genome is a commit:
the tip of the forge's default branch, fetched into
`refs/dna/remotes/<forge>/genome` (`git fetch <forge> +HEAD:…`: the remote's
HEAD names its default branch; when it names a branch the forge lacks, as a
`git init --bare` HEAD on `master` does after the project pushed `main`,
the branch this clone tracks there). The commit's `dna/` and `vendor/` trees are
written to `.git/hale/genomes/<commit>/` (to a temporary folder renamed into
place, so a half-written genome is never taken for one) and built there, so
the work tree is never touched. A commit that built is remembered in
`.git/hale/genomes/good`; one that does not build leaves the node on that
one. Without a forge the node serves the work tree itself (`hale dna dev`
on a project that has no remote); a work tree that builds is remembered
too: as its HEAD commit when its genome trees match it, else as a copy of
them (`genomes/<head>+<digest>/`), so a broken edit falls back to what was
last served. When nothing is remembered (a first start), the last genome
that built is looked for among the commits before the one that failed
(`built_before`, first parents, at most `SEARCH`), so a node serves the
last genome that builds in every case it can find one.

Without a forge, the local default branch stands in for one: the branch
HEAD names, read at start (`local_tip`), is polled as a forge's tip is, so
a new commit there is a pull (exit 75) and the next start builds it under
the same rule (a genome that does not build leaves the node on the last
good one).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pygit2

from hale_runtime import errors
from hale_runtime.node.git import GitFailed, git, text

GENOME_TREES = ("dna", "vendor")
SEARCH = 16  # commits looked at for the last genome that builds, when none is remembered


@dataclass(frozen=True)
class Genome:
    commit: str  # the commit served ("" for a work tree with no commit)
    folder: Path  # where it is built from
    work_tree: bool = False

    @property
    def label(self) -> str:
        short = self.commit[:7] if self.commit else "(no commit)"
        return f"{short} (work tree)" if self.work_tree else short


class BuildFailed(errors.Refused):
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
    """Fetch the forge's default branch; its tip commit (GitFailed when unreachable).

    The default branch is what the forge's HEAD names. When HEAD names a branch
    the forge lacks (`git init --bare` made `master`, the project pushed
    `main`), the branch this clone tracks there is the genome instead."""
    try:
        git(root, ["fetch", "-q", "--no-tags", forge, f"+HEAD:{tracking(forge)}"], timeout_s)
    except GitFailed as failed:
        if "couldn't find remote ref HEAD" not in f"{failed} {failed.stderr}":
            raise
        branch = tracked_branch(root, forge, timeout_s)
        if branch is None:
            raise
        git(root, ["fetch", "-q", "--no-tags", forge, f"+{branch}:{tracking(forge)}"], timeout_s)
    return text(root, ["rev-parse", "--verify", tracking(forge)], timeout_s)


def tracked_branch(root: Path, forge: str, timeout_s: float) -> str | None:
    """The forge's branch this clone follows: its branch's upstream when that is at
    the forge, else the branch of the same name (None on a detached HEAD)."""
    try:
        branch = text(root, ["symbolic-ref", "-q", "HEAD"], timeout_s)
    except GitFailed:
        return None
    name = branch.removeprefix("refs/heads/")
    try:
        remote = text(root, ["config", "--get", f"branch.{name}.remote"], timeout_s)
        merge = text(root, ["config", "--get", f"branch.{name}.merge"], timeout_s)
    except GitFailed:
        return branch
    return merge if remote == forge and merge else branch


def local_tip(root: Path) -> str:
    """The tip of the local default branch (the branch HEAD names); "" while unborn."""
    repo = pygit2.Repository(str(root))
    if repo.head_is_unborn:
        return ""
    return str(repo.head.target)


def local_moved(root: Path, seen: str) -> str:
    """Why the local default branch is a pull ("" while its tip is still `seen`)."""
    tip = local_tip(root)
    if tip == seen:
        return ""
    where = local_branch(root)
    return f"the genome moved on the local branch {where}: {(seen or 'nothing')[:7]} -> {tip[:7]}"


def local_branch(root: Path) -> str:
    """The local default branch's name, as a node says it ("HEAD" when detached)."""
    repo = pygit2.Repository(str(root))
    try:
        ref = repo.lookup_reference("HEAD").target
    except (KeyError, pygit2.GitError):
        return "HEAD"
    return str(ref).removeprefix("refs/heads/") if isinstance(ref, str) else "HEAD"


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
    from hale_runtime.engine.budget import budget_refusal

    if not (genome.folder / "dna" / "org" / "main.hl").is_file():
        raise BuildFailed(genome.commit, "error: dna/org/main.hl is missing")
    compiled = compile_entries(genome.folder, genome_files(genome.folder))
    if compiled.errors:
        shown = [d for d in compiled.diagnostics if d.is_error]
        raise BuildFailed(genome.commit, render_all(shown, compiled.sources))
    refused = budget_refusal(genome.folder)
    if refused:
        raise BuildFailed(genome.commit, refused)


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


def keep_work_tree(root: Path, served: Genome) -> str:
    """Remember the work tree that just built: its HEAD commit when its genome
    trees match it, else a copy of them; the name `last_good` will give back."""
    repo = pygit2.Repository(str(root))
    changed = [
        path
        for path, flags in repo.status(untracked_files="all", ignored=False).items()
        if path.split("/", 1)[0] in GENOME_TREES and flags != pygit2.enums.FileStatus.CURRENT
    ]
    if served.commit and not changed:
        materialize(root, served.commit)  # what last_good finds, written from git
        return served.commit
    files = sorted(
        p for name in GENOME_TREES if (Path(root) / name).is_dir()
        for p in (Path(root) / name).rglob("*") if p.is_file()
    )  # fmt: skip
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.relative_to(root)}\0".encode() + file.read_bytes() + b"\0")
    name = f"{served.commit or 'worktree'}+{digest.hexdigest()[:12]}"
    target = genomes_dir(root) / name
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
        for name_ in GENOME_TREES:
            if (Path(root) / name_).is_dir():
                shutil.copytree(Path(root) / name_, scratch / name_, symlinks=True)
        try:
            scratch.rename(target)
        except OSError:  # another process kept it first: the same files
            shutil.rmtree(scratch, ignore_errors=True)
    return name


def built_before(root: Path, failed: Genome | None) -> str | None:
    """The newest commit, at or before the one that failed, whose genome builds:
    the work tree's HEAD when the work tree failed with edits of its own, then
    first parents, at most SEARCH commits."""
    repo = pygit2.Repository(str(root))
    if failed is not None and failed.commit and not failed.work_tree:
        start = repo.get(failed.commit)
    else:
        start = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)
    skip = failed.commit if failed is not None and _is_commit(repo, failed) else None
    looked = 0
    while start is not None and looked < SEARCH:
        commit = str(start.id)
        if commit != skip:
            looked += 1
            try:
                build(materialize(root, commit))
            except BuildFailed:
                pass
            else:
                return commit
        start = start.parents[0] if start.parents else None
    return None


def _is_commit(repo: pygit2.Repository, genome: Genome) -> bool:
    """Whether `genome` is exactly a commit (not a work tree with edits of its own)."""
    if not genome.commit:
        return False
    if not genome.work_tree:
        return True
    changed = repo.status(untracked_files="all", ignored=False)
    return not any(p.split("/", 1)[0] in GENOME_TREES for p in changed)
