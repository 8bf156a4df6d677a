"""Damage: every reading verb on a damaged clone (a record object missing or
corrupt, a broken ref, a truncated index) says in one line what is damaged
and names `hale dna repair`, never a traceback; `hale dna repair` mends it
from the remote, and the record reads as it did. Hypothesis chooses the damage."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robust_helpers import forge_and_clone, git

from hale_runtime.cli import hale
from hale_runtime.record import Record

VERBS = [["history"], ["status"], ["show", "processes"], ["sync"]]
# the other reading verbs: they may refuse for their own reasons (no task t1 here),
# in one line, never with a traceback
OTHER_VERBS = [["show", "t1"], ["schedule"], ["review"], ["definitions"], ["debug", "t1"]]
DAMAGE = ["missing tree", "missing blob", "missing commit", "corrupt object", "empty object",
          "broken ref", "truncated index"]  # fmt: skip


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone whose record has enough commits that its index is kept on disk, all at the forge."""
    tmp = tmp_path_factory.mktemp("damage")
    _, a = forge_and_clone(tmp)
    record = Record.open(a)
    for n in range(70):
        record.append("note.made", f"n{n}", {"n": n})
    record.sync()
    record.close()
    Record.open(a).rows()  # read once: the index is written
    assert (a / ".git" / "hale" / "record.index").stat().st_size > 0
    return a


def _objects(clone: Path, which: str, pick: int) -> Path:
    """The loose object file of one of the record's commits, trees or blobs."""
    commits = git(clone, "rev-list", "refs/dna/record").split()
    commit = commits[pick % len(commits)]
    hexid = {
        "commit": commit,
        "tree": git(clone, "rev-parse", f"{commit}^{{tree}}"),
        "blob": git(clone, "rev-parse", f"{commit}:rows.jsonl"),
    }[which]
    return clone / ".git" / "objects" / hexid[:2] / hexid[2:]


def damage(clone: Path, how: str, pick: int) -> None:
    if how.startswith("missing "):
        _objects(clone, how.split()[1], pick).unlink()
    elif how == "corrupt object":
        path = _objects(clone, ("commit", "tree", "blob")[pick % 3], pick)
        path.chmod(0o644)
        path.write_bytes(path.read_bytes()[:7] + b"\x00garbage")
    elif how == "empty object":
        path = _objects(clone, "blob", pick)
        path.chmod(0o644)
        path.write_bytes(b"")
    elif how == "broken ref":
        (clone / ".git" / "refs" / "dna" / "record").write_text("not a commit at all\n")
    elif how == "truncated index":
        index = clone / ".git" / "hale" / "record.index"
        index.write_bytes(index.read_bytes()[: 3 * 4096 + 100])


def refusal(result, where: str) -> str:
    """The one line a verb that did not succeed said ("" when it succeeded); never a traceback."""
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), f"{where}: {result.exception!r}"
    if result.exit_code == 0:
        return ""
    said = result.output.strip().splitlines()
    assert len(said) == 1, f"{where}: {result.output}"
    return said[0]


def run(clone: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(clone)
    return CliRunner().invoke(hale, ["dna", *args])


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(DAMAGE), st.integers(0, 80))
def test_damage_is_one_line_and_repair_mends_it(
    template: Path, tmp_path_factory: pytest.TempPathFactory, how: str, pick: int
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        clone = tmp_path_factory.mktemp("clone") / "a"
        shutil.copytree(template, clone, symlinks=True)
        before = [row.id for row in Record.open(clone).rows(poison=True)]
        damage(clone, how, pick)
        for verb in VERBS + OTHER_VERBS:
            said = refusal(run(clone, monkeypatch, *verb), f"{how} {verb}")
            if said and verb in VERBS:  # the record's readers name the damage and the fix
                assert said.startswith("hale: ") and "hale dna repair" in said, said
        mended = run(clone, monkeypatch, "repair")
        assert mended.exit_code == 0, f"{how}: {mended.output}"
        assert mended.output.startswith("repair: the record reads whole")
        assert [row.id for row in Record.open(clone).rows(poison=True)] == before
        assert run(clone, monkeypatch, "history", "--offline").exit_code == 0
        fsck = subprocess.run(["git", "fsck", "--no-dangling", "--connectivity-only"], cwd=clone,
                              capture_output=True, text=True)  # fmt: skip
        assert fsck.returncode == 0, fsck.stderr
