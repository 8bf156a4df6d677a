"""Issue 29: delegated endorsement, judged in chain order. Any order of the
Board's delegations and their revocations, fillings of the delegated
position, and endorsements by the delegate and by a stranger reaches the
verdicts a small model of the rule reaches: an endorsement binds when its
signer's endorsed key is delegated at that place in the chain (by name, or
by holding the delegated position) and the name is not the Board's. The
rows go through the trust fold as the Record joins them (judge, then take
what stands); a hostile `key delegate` argument is refused in one line."""

from __future__ import annotations

from pathlib import Path

from authority_helpers import Person
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hale_runtime.record import Record, keys
from hale_runtime.record.kinds import (
    ENDORSE_DELEGATED,
    ENDORSE_REVOKED,
    KEY_REGISTERED,
    POSITION_FILLED,
    POSITION_VACATED,
)
from hale_runtime.record.row import Row, new_row
from hale_runtime.record.signing import Proof
from hale_runtime.record.trust import Trust

EDITOR = "position:editor"
KEYS = {"alice": bytes([1]) * 32, "bob": bytes([2]) * 32, "dave": bytes([4]) * 32,
        "mallory": bytes([3]) * 32}  # fmt: skip
FPS = {name: keys.fingerprint(public) for name, public in KEYS.items()}

DELEGATE = st.tuples(st.sampled_from(["delegate", "revoke"]), st.sampled_from(["bob", EDITOR]))
FILL = st.tuples(st.sampled_from(["fill"]), st.sampled_from(["bob", "dave", "mallory", ""]))
ENDORSE = st.tuples(
    st.sampled_from(["bob", "dave", "mallory"]), st.sampled_from(["carol", "alice"])
)
STEPS = st.lists(st.one_of(DELEGATE, FILL, ENDORSE), max_size=14)


class Model:
    """The rule, small: who is delegated, who holds the editor, what binds."""

    def __init__(self) -> None:
        self.delegated: set[str] = set()
        self.editor = ""

    def binds(self, signer: str, name: str) -> bool:
        endorsed = signer != "mallory"  # the Board endorsed bob's and dave's; mallory's is hers
        by = signer in self.delegated or (EDITOR in self.delegated and self.editor == signer)
        return endorsed and by and name != "alice"


def _row(kind: str, key: str, body: dict, who: str, n: int) -> Row:
    return new_row(kind, key, body, f"{who}@box:c0ffee00", 1_767_225_600_000 + n, "c0ffee00")[0]


def _key_row(name: str, public: bytes, bound: str, n: int, by: str) -> Row:
    body = {"identity": name, "public": keys.encode_public(public), "bound": bound}
    return _row(KEY_REGISTERED, f"key:{keys.fingerprint(public)}", body, by, n)


def _fold(trust: Trust, row: Row, signer: str) -> str:
    why = trust.judge(row, Proof(FPS[signer]))
    if not why:
        trust.take(row)
    return why


def _world() -> Trust:
    trust = Trust()
    assert not _fold(trust, _key_row("alice", KEYS["alice"], "genesis", 0, "alice"), "alice")
    assert not _fold(trust, _key_row("bob", KEYS["bob"], "endorsed", 1, "alice"), "alice")
    assert not _fold(trust, _key_row("dave", KEYS["dave"], "endorsed", 1, "alice"), "alice")
    assert not _fold(trust, _key_row("mallory", KEYS["mallory"], "self", 2, "mallory"), "mallory")
    return trust


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_any_order_reaches_the_models_verdicts(steps: list[tuple[str, str]]) -> None:
    trust, model = _world(), Model()
    for n, (what, arg) in enumerate(steps, 10):
        if what in ("delegate", "revoke"):
            kind = ENDORSE_DELEGATED if what == "delegate" else ENDORSE_REVOKED
            why = _fold(trust, _row(kind, f"endorse/{arg}", {"to": arg}, "alice", n), "alice")
            assert (why == "") == (what == "delegate" or arg in model.delegated), why
            (model.delegated.add if what == "delegate" else model.delegated.discard)(arg)
        elif what == "fill":
            if arg:
                row = _row(POSITION_FILLED, "editor", {"position": "editor", "holder": arg},
                           "alice", n)  # fmt: skip
            else:
                row = _row(POSITION_VACATED, "editor", {"position": "editor"}, "alice", n)
            assert not _fold(trust, row, "alice")
            model.editor = arg
        else:
            public = n.to_bytes(32, "big")  # a fresh key each endorsement
            why = _fold(trust, _key_row(arg, public, "endorsed", n, what), what)
            assert (why == "") == model.binds(what, arg), (what, arg, why)
            bound = trust.keys.get(keys.fingerprint(public))
            assert (bound is not None and bound.endorsed) == model.binds(what, arg)
    assert trust.delegates.given == model.delegated
    assert Trust.restore(trust.snapshot()).delegates.given == model.delegated


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=40))
def test_a_hostile_delegate_is_refused_in_one_line(project: Path, alice: Person, to: str) -> None:
    said = alice.hale("key", "delegate", "--", to)
    assert said.exception is None or isinstance(said.exception, SystemExit), said.output
    assert said.exit_code in (0, 1), said.output
    if said.exit_code:
        (one,) = said.output.splitlines()
        assert one.startswith("hale: "), said.output
    else:
        assert said.output.endswith("(endorse.delegated)\n"), said.output
        assert to in Record.open(project).trust.delegates.given
