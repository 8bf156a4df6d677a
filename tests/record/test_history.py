"""`hale dna history`: the record's rows as the seeds print them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.record import RECORD_REF, Record


@pytest.fixture
def filled(record: Record, project: Path, monkeypatch: pytest.MonkeyPatch) -> Record:
    holder = record.who
    record.append("claim.taken", "plan/i7", {"holder": holder, "token": 1, "until": 1767225630000})
    record.append_many(
        [
            ("schedule.requested", "req/r1", {"id": "nightly", "cron": "0 2 * * *", "by": "ann"}),
            ("intent.requested", "t1", {"objective": "réconcilier les comptes"}),
        ]
    )
    record.append("claim.released", "plan/i7", {"holder": holder})
    monkeypatch.chdir(project / "dna")  # any folder inside the project
    return record


def history(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(hale, ["dna", "history", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args",
    [(), ("plan/",), ("--kind", "claim.taken"), ("--since", "2"), ("--json",)],
    ids=["all", "key-prefix", "kind", "since", "json"],
)
def test_history_prints_one_row_a_line(filled: Record, args: tuple[str, ...], snapshot) -> None:
    code, out, err = history(*args)
    assert (code, err) == (0, "")
    assert out == snapshot


def test_history_prints_claims_the_way_the_seed_does(filled: Record) -> None:
    _, out, _ = history("plan/i7", "--kind", "claim.taken")
    assert (
        out
        == 'claim.taken plan/i7 {"holder": "ann@box:c0ffee00", "token": 1, "until": 1767225630000}\n'
    )


def test_history_outside_a_project_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = history()
    assert code == 1 and out == ""
    assert err.startswith("hale: ") and "hale dna new" in err and err.count("\n") == 1


def test_history_on_a_damaged_record_is_one_line(filled: Record, project: Path) -> None:
    (project / ".git" / RECORD_REF).write_text("garbage\n")
    code, out, err = history()
    assert code == 1 and out == ""
    assert RECORD_REF in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_key_prefix_matches_whole_segments(record: Record, project: Path, monkeypatch) -> None:
    record.append_many(
        [
            ("task.born", "t1", {}),
            ("step.registered", "t1/wf1/s0", {}),
            ("task.born", "t1.s0.b", {}),
            ("task.born", "t10", {}),
            ("step.registered", "t10/wf1/s0", {}),
        ]
    )
    monkeypatch.chdir(project)
    keys = [line.split()[1] for line in history("t1")[1].splitlines()]
    assert keys == ["t1", "t1/wf1/s0", "t1.s0.b"]
    keys = [line.split()[1] for line in history("t1/")[1].splitlines()]
    assert keys == ["t1/wf1/s0"]


def test_history_verify_says_who_signed_each_row(
    project: Path, monkeypatch: pytest.MonkeyPatch, snapshot
) -> None:
    """Signers, whether they verify, and refusals: keys from fixed seeds, so the
    signatures (Ed25519 is deterministic) and the output are the same each run."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from hostile import append_lines, line, row_id
    from record_helpers import stepping_clock

    from hale_runtime.record.keys import SigningKey, encode_public
    from hale_runtime.record.signing import key_of, signature_body

    alice = SigningKey(Ed25519PrivateKey.from_private_bytes(b"a" * 32), project)
    mallory = SigningKey(Ed25519PrivateKey.from_private_bytes(b"m" * 32), project)
    record = Record.open(project, clock=stepping_clock(), who="alice@box:c0ffee00", sign=alice)
    genesis = {"identity": "alice", "public": encode_public(alice.public), "bound": "genesis"}
    record.append("key.registered", key_of(alice.fingerprint), genesis)
    decided = {"decision": "approved", "by": "alice", "practice": "p"}
    record.append("review.decided", "k:000000000001", decided)
    forged = line("review.decided", "k:000000000002", decided, who="alice@box:c0ffee00")
    body = signature_body(mallory, record.trust.record, [row_id(forged)])
    append_lines(project, [line("row.signed", key_of(mallory.fingerprint), body), forged])
    append_lines(project, [line("claim.taken", "plan/i7", {"token": 1})])
    monkeypatch.chdir(project)
    code, out, err = history("--verify")
    assert (code, err) == (0, "")
    assert out == snapshot
    code, out, err = history("--verify", "--json", "k:")
    assert [json.loads(one)["refused"] != "" for one in out.splitlines()] == [False, True]
