"""Issue 29, item 3: quarantine is local judgment. A `row.quarantined` naming
someone's good ask changes nothing: the relay keeps relaying the ask, and the
organization does not count it poison, whoever wrote the `row.quarantined`
(a stranger's is refused itself; even the organization's own records a
verdict and makes none). A row that is poison by its own content is still
never relayed."""

from __future__ import annotations

from pathlib import Path

from authority_helpers import Person
from trust_helpers import forge

from hale_runtime.node.quarantine import Quarantine
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record
from hale_runtime.record.kinds import INTENT_REQUESTED, ROW_QUARANTINED


def pending(project: Path) -> set[str]:
    relay = Relay()
    relay.read(Record.open(project))
    return {row.id for row in relay.pending.values()}


def test_a_row_quarantined_names_a_good_ask_and_it_is_still_relayed(
    project: Path, mallory: Person
) -> None:
    record = Record.open(project)
    ask = record.append(INTENT_REQUESTED, "ask-1", {"objective": "tidy the docs"})
    assert ask.id in pending(project)

    verdict = {"kind": INTENT_REQUESTED, "why": "mallory says so"}
    (forged,) = forge(project, [(ROW_QUARANTINED, ask.id, verdict)], mallory.key(),
                      record=record.trust.record)  # fmt: skip
    fresh = Record.open(project)
    (row,) = [r for r in fresh.rows(kind=ROW_QUARANTINED, poison=True) if r.id == forged]
    assert fresh.poison_of(row).startswith(f"refused: {ask.id} ")
    assert ask.id in pending(project)

    Record.open(project).append(ROW_QUARANTINED, ask.id, verdict)  # the organization's key
    assert ask.id in pending(project)
    quarantine = Quarantine(Record.open(project), None, "org@box:c0ffee00")
    quarantine.read()
    assert not quarantine.holds(ask.id)


def test_a_request_poison_by_its_content_is_never_relayed(project: Path) -> None:
    (bad,) = forge(project, [(INTENT_REQUESTED, "ask-2", {"objective": 7})], None)
    assert bad not in pending(project)
    quarantine = Quarantine(Record.open(project), None, "org@box:c0ffee00")
    assert quarantine.write() == 1
    assert quarantine.holds(bad)
