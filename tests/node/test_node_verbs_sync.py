"""Sync never fails silently (reproduction 6): `git clone proj c1` makes the
project's own work tree c1's origin, a non-bare repository. A verb in c1
that writes a row either lands it there or says it did not and exits 1,
keeping the row for the next sync; read verbs fetch first, so c1 sees what
the organism did; and the organism in proj still admits work."""

from __future__ import annotations

from pathlib import Path

from node_helpers import Node, clone, hale, make_dna_forge, sh, wait_for

from hale_runtime.record import Record, keys

ENV = {"HALE_DNA_ANSWER_WAIT": "30"}


def kinds_at(root: Path, kind: str) -> list:
    return Record.open(root).rows(kind=kind)


def test_a_clone_of_the_project_itself_syncs_every_row_or_says_so(tmp_path, nodes):
    assert hale(tmp_path, "dna", "new", "proj").returncode == 0
    proj = tmp_path / "proj"
    organism: Node = nodes(proj, "dev", ENV)
    organism.wait_running()
    declared = hale(proj, "dna", "schedule", "declare", "nightly", "--every", "3600000",
                    "--definition", "optimize-walk", "--convener", "leader", env=ENV)  # fmt: skip
    assert declared.returncode == 0, declared.stderr
    sh(tmp_path, "git", "clone", "-q", str(proj), "c1")
    c1 = tmp_path / "c1"

    offline = hale(c1, "dna", "schedule", "--offline")  # `git clone` fetched no refs/dna/*
    assert offline.returncode == 0 and "none declared" in offline.stdout, offline.stderr
    listed = hale(c1, "dna", "schedule")  # a read verb fetches first: the fresh clone sees it
    assert "nightly [live]" in listed.stdout, listed.stdout + listed.stderr
    paused = hale(c1, "dna", "schedule", "pause", "nightly")
    assert paused.returncode == 0 and "schedule nightly paused" in paused.stdout, paused.stderr
    assert [r.key for r in kinds_at(proj, "schedule.paused")] == ["nightly"]  # it left c1
    wait_for(lambda: "nightly [paused]" in hale(proj, "dna", "schedule").stdout, 30, "the pause")

    sh(c1, "git", "remote", "set-url", "origin", str(tmp_path / "gone"))
    resumed = hale(c1, "dna", "schedule", "resume", "nightly")
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "schedule nightly resumed" in resumed.stdout
    assert "hale: written here; not yet at origin: " in resumed.stderr
    assert kinds_at(c1, "schedule.resumed") and not kinds_at(proj, "schedule.resumed")
    offline = hale(c1, "dna", "history", "nightly", "--offline")
    assert offline.returncode == 0 and "schedule.resumed nightly" in offline.stdout
    unsynced = hale(c1, "dna", "history", "nightly")  # a read verb still reads, and says why
    assert unsynced.returncode == 0 and "not synced with origin" in unsynced.stderr

    sh(c1, "git", "remote", "set-url", "origin", str(proj))
    assert hale(c1, "dna", "status").returncode == 0  # the next sync sends the row
    assert [r.key for r in kinds_at(proj, "schedule.resumed")] == ["nightly"]

    asked = hale(c1, "dna", "task", "create", "--judgment", "does the organism still admit work")
    assert asked.returncode == 0, asked.stderr
    intent = asked.stdout.split()[1]
    wait_for(lambda: any(r.key == intent for r in kinds_at(proj, "intent.offered")), 30,
             "the organism to admit the ask")  # fmt: skip
    assert organism.stop() == 0, organism.log()


def ssh_public() -> tuple[str, str]:
    """A fresh Ed25519 public key as an OpenSSH line, and its fingerprint."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public = Ed25519PrivateKey.generate().public_key()
    line = public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return line.decode(), keys.fingerprint(raw)


ANN_KEY, ANN_FINGERPRINT = ssh_public()
WRITERS = [  # (argv, what it prints on stdout, the kind it writes)
    (["schedule", "declare", "nightly", "--every", "3600000", "--definition", "optimize-walk",
      "--convener", "leader"], "schedule nightly asked", "schedule.requested"),
    (["task", "create", "--judgment", "judge it"], "is in the record", "intent.requested"),
    # (`task cancel` writes only for a task the record holds, and this one holds none:
    # tests/cli/test_cli_verbs.py; tests/spine/test_cancel.py cancels one from a clone)
    (["fill", "leader", "ann"], "position:leader is held by ann", "position.filled"),
    (["body", "provision", "localhost"], "host localhost provisioned", "body.provisioned"),
    (["key", "register", "ann", ANN_KEY], "is ann's, endorsed", "key.registered"),
    (["key", "revoke", ANN_FINGERPRINT], "of ann is revoked", "key.revoked"),
    (["grant", "leader", "--reviews", "operating"], "(grant.given)", "grant.given"),
    (["grant", "revoke", "leader"], "(grant.revoked)", "grant.revoked"),
]  # fmt: skip


def test_every_writing_verb_says_its_rows_did_not_leave_and_the_next_sync_sends_them(tmp_path):
    forge, _ = make_dna_forge(tmp_path)
    c1 = tmp_path / "c1"
    sh(tmp_path, "git", "clone", "-q", str(forge), str(c1))
    assert hale(c1, "dna", "history").returncode == 0  # c1 holds the record (rows join it)
    sh(c1, "git", "remote", "set-url", "origin", str(tmp_path / "gone"))
    for argv, said, kind in WRITERS:
        done = hale(c1, "dna", *argv)
        assert done.returncode == 1 and said in done.stdout, done.stdout + done.stderr
        assert done.stderr.splitlines()[-1] == (
            f"hale: written here; not yet at origin: reaching origin failed: "
            f"no repository at {tmp_path / 'gone'}"
        ), done.stderr
        assert "Traceback" not in done.stderr
        assert kinds_at(c1, kind), f"{kind} was not kept in c1"
    sh(c1, "git", "remote", "set-url", "origin", str(forge))
    listed = hale(c1, "dna", "history")  # a read verb's sync sends what the verbs kept
    assert listed.returncode == 0 and not listed.stderr, listed.stderr
    fresh = Record.open(clone(forge, tmp_path / "fresh"))
    fresh.sync()
    for _, _, kind in WRITERS:
        assert fresh.rows(kind=kind), f"{kind} never reached the remote, or not as a good row"
