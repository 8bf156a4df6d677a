"""Erasure is erasure: after a redaction no file under the clone's `.git`
holds the body's plaintext: not the objects, not memory or its WAL, not the
index, not the application's event file it was first read from, nor its logs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from robust_helpers import forge_and_clone

from hale_runtime.cli import hale
from hale_runtime.memory import open_memory
from hale_runtime.memory.projection import project
from hale_runtime.record import Record, protected

SECRET = "card 4111-1111 of ann\u00e9@example.com"


def holders(gitdir: Path, secret: str) -> list[str]:
    """Every file under `gitdir` whose bytes hold `secret` (raw or JSON-escaped),
    and the git objects (compressed on disk) that do."""
    forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
    found = [
        str(path.relative_to(gitdir))
        for path in sorted(gitdir.rglob("*"))
        if path.is_file() and any(form in path.read_bytes() for form in forms)
    ]
    objects = subprocess.run(
        ["git", f"--git-dir={gitdir}", "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
    ).stdout
    return found + (["<a git object>"] if any(form in objects for form in forms) else [])


def test_store_no_file_under_git_keeps_a_redacted_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, a = forge_and_clone(tmp_path)
    gitdir = a / ".git"
    # the application wrote the reading to its event file; the node took it from there
    events = gitdir / "hale" / "app" / "web.events"
    events.parent.mkdir(parents=True)
    events.write_text(
        json.dumps({"kind": "down", "detail": SECRET}) + "\n"
        + json.dumps({"kind": "up", "detail": "all is well"}) + "\n"
    )  # fmt: skip
    size = events.stat().st_size
    # and it logged it, in its log and the log rotated before it
    logs = [events.with_suffix(".log"), events.with_suffix(".log.1")]
    for log in logs:
        log.write_text(f"GET /pay 500 detail={SECRET}\nGET / 200\n")
    record = Record.open(a)
    digest = protected.put(record.repo, {"detail": SECRET})
    row = record.append("reading.taken", "web", {"kind": "down", "protected": digest})
    record.sync()
    memory = open_memory(gitdir / "hale" / "memory.sqlite3")
    memory.migrate()
    project(record, memory)
    assert memory.protected_body(digest) == {"detail": SECRET}
    assert holders(gitdir, SECRET)  # it is there before

    monkeypatch.chdir(a)
    said = CliRunner().invoke(hale, ["dna", "redact", row.id, "--why", "personal data"])
    assert said.exit_code == 0, said.output
    project(Record.open(a), memory)  # the node's next tick: memory erases it
    assert memory.protected_body(digest) is None
    assert holders(gitdir, SECRET) == []
    # the event file keeps its length (a reader's offset into it holds) and its other lines
    assert events.stat().st_size == size
    assert json.loads(events.read_text().splitlines()[1]) == {"kind": "up", "detail": "all is well"}
    for log in logs:  # the logs keep their other lines too
        assert log.read_text().splitlines()[1] == "GET / 200"
    memory.close()
