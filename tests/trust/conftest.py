"""A hostile clone's world: a project its Board made, and a stranger.

alice ran `hale dna new`: her key is the record's genesis (the Board while
it is unheld), and she endorsed the session's key for `org`, the identity
the tests' organization writes as (tests/conftest.py). mallory has a key of
her own that nobody endorsed; what she writes reaches this clone as a
commit of raw rows (`forge`), as a push from a second clone would.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "authority"))
from authority_helpers import Person, endorse_the_organization  # noqa: E402
from hostile import append_lines, line, row_id  # noqa: E402

from hale_runtime.record import keys  # noqa: E402
from hale_runtime.record.identity import CLONE_KEY  # noqa: E402
from hale_runtime.record.signing import key_of, signature_body  # noqa: E402

STRANGER = "mallory@elsewhere:0badc0de"


@pytest.fixture
def alice(tmp_path: Path) -> Person:
    return Person("alice", tmp_path / "home-alice")


@pytest.fixture
def mallory(tmp_path: Path) -> Person:
    return Person("mallory", tmp_path / "home-mallory")


@pytest.fixture
def project(tmp_path: Path, alice: Person, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project alice made (`hale dna new`), the organization's key endorsed."""
    path = tmp_path / "project"
    pygit2.init_repository(str(path), initial_head="main").config[CLONE_KEY] = "c0ffee00"
    made = alice.hale("new", str(path))
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(path)
    endorse_the_organization(alice)
    return path


def forge(
    project: Path,
    rows: list[tuple[str, str, dict[str, Any]]],
    key: keys.SigningKey | None,
    who: str = STRANGER,
    record: str = "",
) -> list[str]:
    """The ids of `rows`, written past the door by `who` in one commit: signed
    by `key` for the record whose genesis row is `record`, or unsigned (None)."""
    lines = [line(kind, k, body, who=who) for kind, k, body in rows]
    ids = [row_id(one) for one in lines]
    if key is not None:
        signed = signature_body(key, record, ids)
        lines.insert(0, line("row.signed", key_of(key.fingerprint), signed, who=who))
    append_lines(project, lines)
    return ids
