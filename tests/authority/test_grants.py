"""The Board's grant: the Leader decides the Reviews inside it, and no others.

Alice made the project (her key is genesis, so she is the Board); she
endorses bob's key, fills position:leader with bob and grants it Reviews.
Bob then decides what the grant covers, and is refused, naming why, a
Review outside it, after it is revoked, or after it ended. Mallory, who
is not the Board, grants nothing: through the verb she is refused before
anything is written, and a grant she pushes past the verb is refused as
it joins the chain and quarantined as a row by the organization's writer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from authority_helpers import Person
from hostile import append_lines, line, row_id

from hale_runtime.node.quarantine import Quarantine
from hale_runtime.record import Record
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.kinds import (
    GRANT_GIVEN,
    REVIEW_DECIDED,
    REVIEW_OPENED,
    ROW_QUARANTINED,
)
from hale_runtime.record.signing import key_of, signature_body

ALICE = "alice@box:c0ffee00"
OTHER = "k:0123456789ab"  # a Review of another family than the seeded ones


def kinds_since(project: Path, since: int) -> list[str]:
    return [r.kind for r in Record.open(project).rows(since=since)]


def reviews(alice: Person) -> list[str]:
    return [w for w in alice.hale("review").output.split() if w.startswith("k:")]


def refused(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "refused: " in result.output, result.output
    for word in words:
        assert word in result.output, result.output


@pytest.fixture
def bob(project: Path, alice: Person) -> Person:
    """Bob, whose key alice endorsed, holding position:leader."""
    bob = Person("bob", project.parent / "home-bob")
    assert alice.hale("key", "register", "bob", bob.key().openssh()).exit_code == 0
    assert alice.hale("fill", "leader", "bob").exit_code == 0
    return bob


def test_the_leader_decides_inside_its_grant_and_the_board_still_decides_any(
    project: Path, alice: Person, bob: Person
) -> None:
    first, second, third = reviews(alice)[:3]
    refused(bob.hale("review", first, "approve"), "which the Board granted no Reviews")
    result = alice.hale("grant", "leader", "--reviews", "operating")
    assert (result.exit_code, result.output) == (
        0,
        "grant/leader: position:leader decides operating Reviews (grant.given)\n",
    )
    before = Record.open(project).cursor()
    result = bob.hale("review", first, "approve")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"review {first} approved: "), result.output
    assert bob.hale("review", second, "reject").exit_code == 0
    assert alice.hale("review", third, "approve").exit_code == 0  # the Board, as ever
    decided = Record.open(project).rows(kind=REVIEW_DECIDED, since=before)
    assert [(r.key, r.who.partition("@")[0]) for r in decided] == [
        (first, "bob"),
        (second, "bob"),
        (third, "alice"),
    ]


def test_a_review_outside_the_grant_is_refused(project: Path, alice: Person, bob: Person) -> None:
    body = {"family": "shaping", "practice": "shaping/x", "receipt": "r", "text": "t"}
    Record.open(project, sign=alice.key(), who=ALICE).append(REVIEW_OPENED, OTHER, body)
    assert alice.hale("grant", "leader", "--reviews", "operating").exit_code == 0
    before = Record.open(project).cursor()
    refused(
        bob.hale("review", OTHER, "approve"),
        f"{OTHER} is a Review of shaping, outside position:leader's grant (operating)",
    )
    assert kinds_since(project, before) == []
    result = alice.hale("grant", "leader", "--reviews", "operating,shaping")
    assert "decides operating, shaping Reviews (grant.given)" in result.output
    assert bob.hale("review", OTHER, "approve").exit_code == 0


def test_after_the_grant_is_revoked_or_ends_the_leader_is_refused(
    project: Path, alice: Person, bob: Person
) -> None:
    first, second = reviews(alice)[:2]
    assert alice.hale("grant", "leader", "--reviews", "operating").exit_code == 0
    result = alice.hale("grant", "revoke", "leader")
    assert (result.exit_code, result.output) == (
        0,
        "grant/leader is revoked: position:leader decides no Reviews (grant.revoked)\n",
    )
    refused(bob.hale("review", first, "approve"), "which the Board granted no Reviews")
    refused(alice.hale("grant", "revoke", "leader"), "grant/leader is no grant the Board gave")

    result = alice.hale("grant", "leader", "--reviews", "operating", "--until", "2099-01-01T00:00Z")
    assert "decides operating Reviews until 2099-01-01T00:00:00Z (grant.given)" in result.output
    until = 4_070_908_800_000  # 2099-01-01, as the row holds it
    assert Record.open(project).trust.grants.given["leader"].until == until
    body = {"decision": "approved", "by": bob.who(), "practice": ""}
    late = Record.open(project, sign=bob.key(), who=bob.who(), clock=lambda: until)
    with pytest.raises(RowRefused, match=r"after position:leader's grant ended \(2099-01-01T"):
        late.append(REVIEW_DECIDED, first, body)
    in_time = Record.open(project, sign=bob.key(), who=bob.who(), clock=lambda: until - 1)
    assert in_time.append(REVIEW_DECIDED, second, body).key == second
    assert "(bob) decides operating Reviews until 2099" in alice.hale("grant").output


def test_what_the_verb_refuses_before_it_writes(
    project: Path, alice: Person, mallory: Person
) -> None:
    before = Record.open(project).cursor()
    refused(
        mallory.hale("grant", "leader", "--reviews", "operating", node=ALICE),
        "grant leader: refused: grant/leader is signed by SHA256:",
    )
    for args, said in [
        (("grant", "editor", "--reviews", "operating"), "only the Leader is granted Reviews"),
        (
            ("grant", "leader", "--reviews", "nonesuch"),
            "no Reviews of nonesuch (it has: operating)",
        ),
        (("grant", "leader"), "say which Reviews"),
        (("grant", "leader", "--reviews", "operating", "--until", "2001-01-01"), "is past"),
        (("grant", "leader", "--reviews", "operating", "--until", "soon"), "no ISO 8601 time"),
        (("grant", "revoke", "leader", "--reviews", "operating"), "hale dna grant revoke leader"),
    ]:
        result = alice.hale(*args)
        assert result.exit_code == 2 and said in result.output, (args, result.output)
    assert kinds_since(project, before) == []
    assert alice.hale("grant").output == "grants: none (the Board decides every Review)\n"


def test_a_grant_not_signed_by_the_board_is_refused_and_quarantined(
    project: Path, alice: Person, mallory: Person, bob: Person
) -> None:
    assert mallory.hale("key", "register").exit_code == 0  # bound to mallory, by herself
    record = Record.open(project)
    body = {"position": "leader", "reviews": ["operating"], "by": "mallory"}
    forged = line(GRANT_GIVEN, "grant/leader", body, who="mallory@box:c0ffee00")
    key = mallory.key()
    signed = signature_body(key, record.trust.record, [row_id(forged)])
    append_lines(project, [line("row.signed", key_of(key.fingerprint), signed), forged])

    record = Record.open(project)
    row = next(r for r in record.rows(kind=GRANT_GIVEN, poison=True) if r.id == row_id(forged))
    why = "refused: grant/leader is not signed by the Board's holder"
    assert record.poison_of(row) == why
    assert record.trust.grants.given == {}
    refused(bob.hale("review", reviews(alice)[0], "approve"), "granted no Reviews")

    assert Quarantine(record, None, "node@box:c0ffee00").write() == 1
    answers = [r for r in Record.open(project).rows(kind=ROW_QUARANTINED) if r.key == row.id]
    assert [(r.body["kind"], r.body["why"]) for r in answers] == [(GRANT_GIVEN, why)]
