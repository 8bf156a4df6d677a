"""What a node's start reads: the checkpoint's version is a digest of the folds'
sources read as files, so computing it imports none of the packages they sit
in (the organization pays for those only when it folds)."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from importlib.metadata import version as dist_version
from pathlib import Path

import pytest
from support.projects import make_project

from hale_runtime.node import checkpoint

FOLD_PACKAGES = ("hale_runtime.engine", "hale_runtime.schedules", "hale_runtime.asks")


def test_the_checkpoint_version_imports_no_fold_package():
    probe = (
        "import sys\n"
        "from hale_runtime.node.checkpoint import version\n"
        "before = set(sys.modules)\n"
        "version()\n"
        f"print(sorted(m for m in set(sys.modules) - before if m.startswith({FOLD_PACKAGES!r})))\n"
    )
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (said.returncode, said.stdout.strip(), said.stderr) == (0, "[]", "")


def test_the_checkpoint_version_digests_the_sources_the_folds_run_from():
    digest = hashlib.sha256(dist_version("hale").encode())
    for name in checkpoint.FOLD_MODULES:  # as the import system finds them
        digest.update(Path(importlib.util.find_spec(name).origin).read_bytes())
    assert checkpoint.version() == digest.hexdigest()[:16]


def test_a_fold_module_that_is_not_there_is_said(monkeypatch):
    monkeypatch.setattr(checkpoint, "FOLD_MODULES", ("hale_runtime.engine.nowhere",))
    with pytest.raises(RuntimeError, match="hale_runtime.engine.nowhere is not installed"):
        checkpoint.version()


def test_the_face_beside_a_starting_node_loads_jinja_at_its_first_page(tmp_path):
    root = make_project(tmp_path / "p")
    probe = (
        "import sys, urllib.request\n"
        "from hale_runtime.face.server import FaceServer\n"
        f"face = FaceServer({str(root)!r}); face.start()\n"
        "print('jinja2' in sys.modules)\n"
        "browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())\n"
        "browser.open(face.url, timeout=30).read()\n"
        "print('jinja2' in sys.modules)\n"
        "face.stop()\n"
    )
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (said.returncode, said.stdout.split(), said.stderr) == (0, ["False", "True"], "")


def test_a_start_with_no_checkpoint_to_read_computes_no_version(tmp_path, monkeypatch):
    computed = []
    monkeypatch.setattr(checkpoint, "version", lambda: computed.append(1) or "v1")
    found = checkpoint.Checkpoints(checkpoint.Files(tmp_path), print).load(record=None)
    assert (found, computed) == (None, [])
    (tmp_path / "hale" / "checkpoints").mkdir(parents=True)
    (tmp_path / "hale" / "checkpoints" / f"{1:012d}-abc-v0{checkpoint.SUFFIX}").write_bytes(b"")
    said = []
    assert checkpoint.Checkpoints(checkpoint.Files(tmp_path), said.append).load(None) is None
    assert computed == [1]  # one to read: the version it was made by is compared
    assert said and "made by version v0, this is v1" in said[0]
