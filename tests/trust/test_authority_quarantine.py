"""Issue 29, item 3: quarantine is local judgment. A `row.quarantined` naming
someone's good ask changes nothing: the relay keeps relaying the ask, and the
organization does not count it poison, whoever wrote the `row.quarantined`
(a stranger's is refused itself; even the organization's own records a
verdict and makes none). A row that is poison by its own content is still
never relayed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from authority_helpers import Person
from trust_helpers import forge

from hale_runtime.node.quarantine import Quarantine
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record
from hale_runtime.record.kinds import INTENT_REQUESTED, RESTART_REQUESTED, ROW_QUARANTINED


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


def test_every_reader_reaches_the_same_verdict_from_the_rows(
    project: Path, mallory: Person, tmp_path: Path
) -> None:
    """Quarantine is local judgment, reached from the rows alone: this clone
    reading through its index, the same clone with its index gone, and a second
    clone that fetched the record find the same rows poison, for the same reasons."""
    assert mallory.hale("key", "register").exit_code == 0
    record = Record.open(project)
    good = record.append(INTENT_REQUESTED, "ask-1", {"objective": "tidy the docs"})
    for n in range(70):  # enough commits that the index is kept on disk
        record.append("note.made", f"n{n}", {"n": n})
    verdict = {"kind": INTENT_REQUESTED, "why": "mallory says so"}
    rows = [(ROW_QUARANTINED, good.id, verdict), (RESTART_REQUESTED, "restart/x", {}),
            (INTENT_REQUESTED, "ask-2", {"objective": 7})]  # fmt: skip
    forge(project, rows, mallory.key(), record=record.trust.record)
    forge(project, rows[1:2], None, who="org@elsewhere:0badc0de")

    def verdicts(root: Path) -> dict[str, str]:
        read = Record.open(root)
        return {row.id: read.poison_of(row) for row in read.rows(poison=True)}

    here = verdicts(project)
    assert (project / ".git" / "hale" / "record.index").exists()
    assert sum(1 for why in here.values() if why) == 4 and here[good.id] == ""
    for index in (project / ".git" / "hale").glob("record.index*"):
        index.unlink()
    assert verdicts(project) == here
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(project), str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "fetch", "-q", "origin", "refs/dna/*:refs/dna/*"],
                   check=True)  # fmt: skip
    assert verdicts(other) == here
