"""Issue 29, item 2: a row that acts stands only when a key the record binds
to a writer its kind allows signed it. A stranger's schedule, ratified
practice, model spend, outcome, restart and node state, signed by her own
key or by none, are refused (never fatal): no reader sees them. The same
rows written by the organization's endorsed key stand. And a row that
cannot be signed is never written (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person
from click.testing import CliRunner
from trust_helpers import forge

from hale_runtime.cli import hale
from hale_runtime.record import Record
from hale_runtime.record.kinds import (
    ATTEMPT_OUTCOME,
    MODEL_CALLED,
    NODE_STOPPED,
    PRACTICE_RATIFIED,
    RESTART_REQUESTED,
    SCHEDULE_DECLARED,
)

EVIL = {"id": "evil", "every_ms": 5000, "definition": "ask-edit", "convener": "leader"}
ACTS = [
    (SCHEDULE_DECLARED, "evil", EVIL),
    (PRACTICE_RATIFIED, "practice/evil", {"receipt": "0" * 64, "by": "mallory"}),
    (MODEL_CALLED, "spend/evil", {"micros": 25_000_000}),
    (ATTEMPT_OUTCOME, "t1/wf/s0/a0", {"outcome": "succeeded", "performer": "mallory"}),
    (RESTART_REQUESTED, "restart/evil", {}),
    (NODE_STOPPED, "node/org", {"code": 0, "reason": "stopped, as mallory says"}),
]


@pytest.mark.parametrize("signed", [True, False], ids=["her-own-key", "unsigned"])
def test_a_strangers_acting_rows_are_refused(project: Path, mallory: Person, signed: bool) -> None:
    assert mallory.hale("key", "register").exit_code == 0  # her key, bound by itself
    record = Record.open(project)
    ids = forge(project, ACTS, mallory.key() if signed else None, record=record.trust.record)

    record = Record.open(project)
    for kind, key, _ in ACTS:
        (row,) = [r for r in record.rows(kind=kind, poison=True) if r.id in ids]
        why = record.poison_of(row)
        assert why.startswith(f"refused: {key} "), (kind, why)
        expected = "no Board endorsement binds" if signed else "is not signed"
        if kind == RESTART_REQUESTED:
            expected = "not signed by the Board's holder" if signed else expected
        assert expected in why, (kind, why)
    assert not [r for r in record.rows() if r.id in ids]  # no reader is handed one


def test_the_organizations_own_rows_stand(project: Path, alice: Person) -> None:
    """The organization's key writes what the organization writes; a restart is
    asked by the Board (alice's genesis key)."""
    record = Record.open(project)
    written = record.append_many([a for a in ACTS if a[0] != RESTART_REQUESTED])
    board = Record.open(project, who="alice@box:c0ffee00", sign=alice.key())
    written.append(board.append(RESTART_REQUESTED, "restart/evil", {}))
    fresh = Record.open(project)
    assert [fresh.poison_of(r) for r in written] == [""] * len(ACTS)
    assert {r.id for r in written} <= {r.id for r in fresh.rows()}


def test_a_row_that_cannot_be_signed_is_never_written(project: Path, tmp_path: Path) -> None:
    before = Record.open(project).cursor()
    unreadable = {"HALE_DNA_KEY": str(tmp_path / "no-such-key")}
    result = CliRunner().invoke(hale, ["dna", "task", "create", "tidy the docs"], env=unreadable)
    assert result.exit_code == 1, result.output
    assert "nothing written: no key signs it" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "Traceback" not in result.output
    assert Record.open(project).cursor() == before


@pytest.mark.parametrize("signed", [True, False], ids=["her-own-key", "unsigned"])
def test_status_reports_a_live_node_started_whatever_a_stranger_says(
    project: Path, mallory: Person, signed: bool
) -> None:
    """Break 2's last line: a forged `node.stopped` for a live node leaves `hale dna
    status` saying it started; the node's own `node.stopped` is what stops it there."""
    from hale_runtime.node.status import node_statuses

    holder = "org@box:c0ffee00"
    record = Record.open(project)
    record.append("node.started", f"node/{holder}", {"genome": "0" * 40, "token": 1})
    assert mallory.hale("key", "register").exit_code == 0
    forged = {"code": 0, "reason": "stopped, as mallory says"}
    forge(project, [(NODE_STOPPED, f"node/{holder}", forged)],
          mallory.key() if signed else None, who=f"{holder}", record=record.trust.record)  # fmt: skip
    assert node_statuses(Record.open(project))[holder].stopped is None
    shown = CliRunner().invoke(hale, ["dna", "status", "--offline"])
    assert shown.exit_code == 0 and "state: started" in shown.output, shown.output
    assert "as mallory says" not in shown.output
    Record.open(project).append(NODE_STOPPED, f"node/{holder}", {"code": 0, "reason": "done"})
    assert node_statuses(Record.open(project))[holder].stopped is not None


@pytest.mark.parametrize("signed", [True, False], ids=["her-own-key", "unsigned"])
def test_a_strangers_restart_never_reaches_the_host(
    project: Path, alice: Person, mallory: Person, signed: bool
) -> None:
    """Break 2: a forged `restart.requested <holder>` is no request the host's relay
    holds (so no restart "as mallory asked"); the Board's own is."""
    from hale_runtime.node.relay import Relay

    holder = "org@box:c0ffee00"
    assert mallory.hale("key", "register").exit_code == 0
    record = Record.open(project)
    forge(project, [(RESTART_REQUESTED, holder, {})], mallory.key() if signed else None,
          who="alice@box:c0ffee00", record=record.trust.record)  # fmt: skip
    relay = Relay()
    relay.read(Record.open(project))
    assert ("restart", holder) not in relay.pending
    board = Record.open(project, who="alice@box:c0ffee00", sign=alice.key())
    board.append(RESTART_REQUESTED, holder, {})
    relay.read(Record.open(project))
    assert ("restart", holder) in relay.pending
