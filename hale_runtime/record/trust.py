"""Who may write what: keys bound to identities, and the authority a row needs.

A fold over the chain, in chain order, so every clone judges a row alike.
It takes in the keys (`key.registered`, `key.revoked`), the positions'
holders (`position.filled`, `position.vacated`), the schedules' conveners
(`schedule.declared`) and the Board's grants with the Reviews' families
(`grant.given`, `grant.revoked`, `review.opened`: grants.py), the
Board's delegates of endorsement (`endorse.delegated`, `endorse.revoked`:
delegates.py), and judges
every row whose kind names a writer other than `anyone` (kinds.WRITERS;
`RULES`: the organization's, a node's and a leg's rows need a key the
Board endorsed, the Board's rows their own rule), given what its batch's
signature proves (signing.py; the Record pairs them, authority.py). A
request that only asks is attributed, never judged. A row that stands changes the fold by its content alone (`take`),
so the fold is made again from the rows that stood, with no signature
checked twice.

Identities. A row names its writer in `who` (`alice@host:<clone>`); its
identity is the part before `@` (`alice`), the name positions are filled
with. A key is bound to one identity, and its row says how (`bound`):

- `genesis`: the record's first key, registered by itself. `hale dna new`
  writes it for its user (on a record made before signing, `hale dna
  upgrade --genesis-key` for the key its operator names). It is the
  Board's root key, holding the Board until the Board is filled, and its
  row's id binds every later signature to this record.
- `board`: the root handed on (`hale dna key rotate`), registered by the
  root key for a key of the same identity; it is the root from then on.
- `endorsed`: registered by the Board's holder or by genesis (the record's
  root of trust until the Board revokes it), or by an endorsed key of the
  same identity.
- `endorsed` by a delegate: as the Board's, signed by an endorsed key of a
  position or identity the Board delegated endorsing to (delegates.py),
  never for the Board's own name.
- `self`: registered by the very key, under its writer's name. It binds
  no name (any number of keys may say the same one, and none blocks the
  person it names) and gives no authority: it proves only the rows it
  signed. A position's holder proves itself with an endorsed key.

Before a record has a genesis nothing is judged, so a record made before
signing reads as it did. A refusal says why in one line, naming the row
by its key (`k:… is not signed by the Board's holder`); the Record keeps
the row in its place and readers never see it (record.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hale_runtime.record import delegates, grants, keys
from hale_runtime.record.kinds import (
    ANYONE,
    BODY_CLAIMED,
    ENDORSE_DELEGATED,
    ENDORSE_REVOKED,
    GRANT_GIVEN,
    GRANT_REVOKED,
    KEY_REGISTERED,
    KEY_REVOKED,
    OUTCOME_REQUESTED,
    POSITION_FILLED,
    POSITION_VACATED,
    REVIEW_DECIDED,
    ROW_REDACTED,
    SCHEDULE_DECLARED,
    SCHEDULE_PAUSED,
    SCHEDULE_REQUESTED,
    SCHEDULE_RESUMED,
    WRITERS,
)
from hale_runtime.record.kinds import BOARD as BOARD_WRITER
from hale_runtime.record.protected import FIELD as PROTECTED
from hale_runtime.record.row import Row
from hale_runtime.record.signing import Proof, key_of

BOARD = "board"
POSITION = "position:"


def _no_row(row_id: str) -> Row | None:
    return None


def _no_signer(row: Row) -> str:
    return ""


def identity(who: str) -> str:
    """The identity a writer names: `alice` of `alice@host:<clone>`."""
    return who.partition("@")[0]


@dataclass
class Key:
    identity: str
    public: str
    endorsed: bool
    revoked: bool = False


class Trust:
    """The fold: `judge` says why a row may not stand, `take` takes one in."""

    def __init__(self) -> None:
        self.genesis = ""  # the genesis key's fingerprint
        self.root = ""  # the Board's root key: genesis's, until the Board rotates it
        self.record = ""  # the genesis row's id: what signatures are bound to
        self.keys: dict[str, Key] = {}
        self.holders: dict[str, str] = {}  # position -> holder, as filled
        self.owners: dict[str, str] = {}  # position -> the organization owning it
        self.conveners: dict[str, str] = {}  # schedule id -> `position:<p>`
        self.grants = grants.Grants()  # the Board's grants, the Reviews' families (grants.py)
        self.delegates = delegates.Delegates()  # who endorses keys in the Board's stead
        # the chain's rows by id, as far as it stands (the Record's): not folded, read by
        # the rules that judge a row against another (a redaction, against its row)
        self.row_of: Callable[[str], Row | None] = _no_row
        # the fingerprint that signed a row of the chain ("" when none verifies): the
        # Record's, for the rules that ask whose key wrote another row (a redaction)
        self.signer_of: Callable[[Row], str] = _no_signer

    # ---- the fold ------------------------------------------------------------------

    def judge(self, row: Row, proof: Proof) -> str:
        """Why `row`, signed as `proof` says, may not stand here ("" when it may)."""
        rule = RULES.get(row.kind)
        if rule is None or (not self.genesis and row.kind not in KEY_KINDS):
            return ""
        if not proof.fingerprint:
            return f"{row.key} {proof.why}"
        if row.kind in KEY_KINDS:
            return rule(self, row, proof.fingerprint)
        return self._bound(row, proof.fingerprint) or rule(self, row, proof.fingerprint)

    def take(self, row: Row) -> None:
        """Take in a row that stands (judged, or read back with no refusal)."""
        body = row.body
        if row.kind == KEY_REGISTERED:
            fp = row.key.removeprefix("key:")
            bound, old = body.get("bound"), self.keys.get(fp)
            if bound == "self" and old is not None and old.endorsed and not old.revoked:
                return  # a key the Board endorsed stays endorsed, whoever registers it again
            self.keys[fp] = Key(str(body["identity"]), str(body["public"]), bound != "self")
            if bound == "genesis" and not self.genesis:
                self.genesis, self.record, self.root = fp, row.id, fp
            elif bound == "board":
                self.root = fp
        elif row.kind == KEY_REVOKED:
            key = self.keys.get(row.key.removeprefix("key:"))
            if key is not None:
                key.revoked = True
        elif row.kind == POSITION_FILLED:
            name = _position(row)
            self.holders[name] = str(body.get("holder") or "")
            if body.get("owner"):
                self.owners[name] = str(body["owner"])
        elif row.kind == POSITION_VACATED:
            self.holders.pop(_position(row), None)
        elif row.kind == SCHEDULE_DECLARED and isinstance(body.get("convener"), str):
            self.conveners[row.key] = body["convener"]
        elif row.kind in grants.KINDS:
            self.grants.take(row)
        elif row.kind in delegates.KINDS:
            self.delegates.take(row)

    def copy(self) -> Trust:
        copied = Trust.restore(self.snapshot())
        copied.row_of, copied.signer_of = self.row_of, self.signer_of
        return copied

    # ---- what a writer proves --------------------------------------------------------

    def key_of(self, fingerprint: str, who: str) -> Key | None:
        """The live key `fingerprint` when it is bound to `who`'s identity."""
        key = self.keys.get(fingerprint)
        if key is None or key.revoked or key.identity != identity(who):
            return None
        return key

    def _bound(self, row: Row, fingerprint: str) -> str:
        """Why the key that signed `row` does not prove the identity it names."""
        key = self.keys.get(fingerprint)
        name = identity(row.who)
        if key is None:
            return f"{row.key} is signed by {fingerprint}, which the record does not bind to {name}"
        if key.identity != name:
            return f"{row.key} names {name} but is signed by {key.identity}'s key {fingerprint}"
        if key.revoked:
            return f"{row.key} is signed by {fingerprint}, which is revoked"
        return ""

    def board_holder(self) -> str:
        """Who holds the Board: its holder, else genesis's identity, else ""."""
        held = self.holders.get(BOARD)
        if held:
            return held
        key = self.keys.get(self.root)
        return key.identity if key is not None else ""

    def is_board(self, who: str, fingerprint: str) -> bool:
        """Whether `who`, signing with `fingerprint`, is the Board: an endorsed key
        of the Board's holder, or the genesis key while nobody holds the Board."""
        key = self.key_of(fingerprint, who)
        if key is None:
            return False
        held = self.holders.get(BOARD)
        if held:
            return key.endorsed and identity(held) == identity(who)
        return fingerprint == self.root

    def not_board(self, row: Row, fingerprint: str) -> str:
        """Why `row`, signed with `fingerprint`, is not the Board's ("" when it is)."""
        if self.is_board(row.who, fingerprint):
            return ""
        return f"{row.key} is not signed by the Board's holder"

    def is_genesis(self, who: str, fingerprint: str) -> bool:
        """Whether `who` signs with the live genesis key (it binds keys even once
        the Board is held, until the Board revokes it)."""
        return fingerprint == self.root and self.key_of(fingerprint, who) is not None

    def holds(self, who: str, fingerprint: str, position: str) -> bool:
        """Whether `who`, signing with `fingerprint`, holds `position` (endorsed key)."""
        key = self.key_of(fingerprint, who)
        held = self.holders.get(position)
        return bool(key and key.endorsed and held and identity(held) == identity(who))

    def keys_of(self, name: str) -> list[tuple[str, Key]]:
        """(fingerprint, key) of every live key bound to identity `name`."""
        return [(fp, k) for fp, k in self.keys.items() if k.identity == name and not k.revoked]

    # ---- checkpoints -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The fold as plain data."""
        return {
            "genesis": self.genesis,
            "root": self.root,
            "record": self.record,
            "keys": {
                fp: [k.identity, k.public, k.endorsed, k.revoked] for fp, k in self.keys.items()
            },
            "holders": dict(self.holders),
            "owners": dict(self.owners),
            "conveners": dict(self.conveners),
            "grants": self.grants.snapshot(),
            "delegates": self.delegates.snapshot(),
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Trust:
        trust = cls()
        trust.genesis, trust.record = data["genesis"], data["record"]
        trust.root = data.get("root", trust.genesis)
        trust.keys = {fp: Key(*k) for fp, k in data["keys"].items()}
        trust.holders = dict(data["holders"])
        trust.owners = dict(data["owners"])
        trust.conveners = dict(data["conveners"])
        trust.grants = grants.Grants.restore(data.get("grants"))
        trust.delegates = delegates.Delegates.restore(data.get("delegates"))
        return trust


def _position(row: Row) -> str:
    return str(row.body.get("position") or row.key.removeprefix(POSITION))


# ---- the rules: (trust, row, the fingerprint that signed it) -> why, "" when it may ----


def _by_board(trust: Trust, row: Row, fp: str) -> str:
    return trust.not_board(row, fp)


def _by_board_or_convener(trust: Trust, row: Row, fp: str) -> str:
    if trust.is_board(row.who, fp):
        return ""
    convener = row.body.get("convener") if row.kind == SCHEDULE_REQUESTED else None
    convener = convener or trust.conveners.get(row.key, "")
    if isinstance(convener, str) and convener.startswith(POSITION):
        if trust.holds(row.who, fp, convener.removeprefix(POSITION)):
            return ""
        return f"{row.key} is not signed by the Board's holder or {convener}'s"
    return f"{row.key} is not signed by the Board's holder"


def _by_person(trust: Trust, row: Row, fp: str) -> str:
    if "resolved_by" not in row.body:
        return ""  # a leg's outcome, through the head: the head checks the leg's lease
    if identity(str(row.body["resolved_by"])) != identity(row.who):
        return f"{row.key} is resolved by {row.body['resolved_by']} but written by {row.who}"
    return ""  # the key proves the person (`_bound`): registered, by itself or the Board


def _by_owner(trust: Trust, row: Row, fp: str) -> str:
    if not row.body.get("forced"):
        return ""
    owner = row.body.get("owner")
    if not owner:
        return _by_board(trust, row, fp)
    name = identity(row.who)
    key = trust.key_of(fp, row.who)
    owns = name == owner or any(
        trust.owners.get(p) == owner and identity(h) == name for p, h in trust.holders.items()
    )
    if key is not None and key.endorsed and owns:
        return ""
    return f"{row.key} is not signed by a key of {owner}"


def _redaction(trust: Trust, row: Row, fp: str) -> str:
    """A redaction stands signed by the key that signed its row (or an endorsed key of
    the identity whose endorsed key did: your rows are the ones your key signed, not
    the ones your name wrote), or by the Board, and only naming the protected body
    that row names."""
    target = trust.row_of(row.key)
    if target is None:
        return f"{row.key} names no row the record holds"
    if target.body.get(PROTECTED) != row.body.get(PROTECTED):
        return f"{row.key} names a protected body its row does not"
    if trust.is_board(row.who, fp):
        return ""
    wrote = trust.signer_of(target)
    if wrote and wrote == fp:
        return ""
    signer, writer = trust.key_of(fp, row.who), trust.keys.get(wrote)
    if signer and writer and signer.endorsed and writer.endorsed and not writer.revoked:
        if signer.identity == writer.identity:
            return ""
    return (
        f"{row.key} is signed by neither its row's writer's key "
        f"nor the Board's holder ({trust.board_holder() or 'none'})"
    )


def _key_registered(trust: Trust, row: Row, fp: str) -> str:
    body = row.body
    public = keys.decode_public(str(body.get("public", "")))
    name, bound, who = str(body.get("identity", "")), body.get("bound"), identity(row.who)
    if public is None or not name or row.key != key_of(keys.fingerprint(public)):
        return f"{row.key} does not name the key its body carries"
    registered = keys.fingerprint(public)
    if bound == "genesis":
        if trust.genesis:
            return f"{row.key} would be a second genesis; the record has one"
        if fp != registered or who != name:
            return f"{row.key} is a genesis not signed by its own key"
        return ""
    if not trust.genesis:
        return f"{row.key} comes before the record's genesis (`hale dna upgrade --genesis-key`)"
    old = trust.keys.get(registered)
    if old is not None and not old.revoked and old.endorsed and old.identity != name:
        return f"{row.key} is {old.identity}'s key already"
    if bound == "board":  # the root handed on (`hale dna key rotate`)
        if fp == trust.root and trust.key_of(fp, row.who) is not None and name == who:
            return ""
        return f"{row.key}: only the Board's root key hands the root on, to a key of its own"
    if trust.is_board(row.who, fp) or trust.is_genesis(row.who, fp):
        return ""  # the Board (or its root key) binds any key, endorsed or not
    delegate = delegates.delegate_of(trust, row.who, fp) if name != who else ""
    if delegate and bound == "endorsed":
        return delegates.endorsed_by_delegate(trust, row, name, old, delegate)
    if name != who:
        return (
            f"{row.key} registers {name}'s key, signed by neither the Board's holder, "
            "genesis, nor a delegate of the Board"
        )
    if old is not None and old.revoked:
        return f"{row.key} is revoked; only the Board's holder binds it again"
    signer = trust.key_of(fp, row.who)
    if bound == "endorsed":
        if signer is not None and signer.endorsed:
            return ""  # an endorsed key of the identity adds another
        return f"{row.key} is endorsed by neither the Board's holder nor an endorsed key of {name}"
    if fp == registered:
        return ""  # a key registers itself: it binds no name, and proves only its own rows
    return f"{row.key}: a key registers itself (signed by that key), or the Board endorses it"


def _key_revoked(trust: Trust, row: Row, fp: str) -> str:
    if not trust.genesis:
        return f"{row.key} comes before the record's genesis (`hale dna upgrade --genesis-key`)"
    target = row.key.removeprefix("key:")
    key = trust.keys.get(target)
    if key is None or key.revoked:
        return f"{row.key} is no live key of this record"
    if trust.is_board(row.who, fp):
        return ""
    signer = trust.key_of(fp, row.who)
    if signer is not None and (
        fp == target or (signer.endorsed and signer.identity == key.identity)
    ):
        return ""  # a key gives itself up, or an endorsed identity gives up one of its keys
    return (
        f"{row.key} is {key.identity}'s, and only the Board's holder or {key.identity} revokes it"
    )


def _by_endorsed(trust: Trust, row: Row, fp: str) -> str:
    """An organization's, a node's or a leg's row: a key the record binds to its name."""
    key = trust.key_of(fp, row.who)
    if key is not None and key.endorsed:
        return ""
    return (
        f"{row.key} is a {WRITERS.get(row.kind)}'s row, signed by a key no Board "
        f"endorsement binds to {identity(row.who)}"
    )


def _by_board_or_holder(trust: Trust, row: Row, fp: str) -> str:
    """A request that acts (a restart, a ledger's adoption): the Board's or a holder's."""
    if trust.is_board(row.who, fp):
        return ""
    if any(trust.holds(row.who, fp, position) for position in trust.holders):
        return ""
    return f"{row.key} is not signed by the Board's holder nor a position's"


def _both(first: Rule, then: Rule) -> Rule:
    return lambda trust, row, fp: first(trust, row, fp) or then(trust, row, fp)


Rule = Callable[[Trust, Row, str], str]
KEY_KINDS = frozenset({KEY_REGISTERED, KEY_REVOKED})
# row kind -> who may write it (once the key that signed it is bound to the identity it names)
RULES: dict[str, Rule] = {
    KEY_REGISTERED: _key_registered,
    KEY_REVOKED: _key_revoked,
    POSITION_FILLED: _by_board,
    POSITION_VACATED: _by_board,
    REVIEW_DECIDED: grants.decided_rule,
    GRANT_GIVEN: grants.grant_rule,
    GRANT_REVOKED: grants.grant_rule,
    ENDORSE_DELEGATED: delegates.delegation_rule,
    ENDORSE_REVOKED: delegates.delegation_rule,
    SCHEDULE_REQUESTED: _by_board_or_convener,
    SCHEDULE_PAUSED: _by_board_or_convener,
    SCHEDULE_RESUMED: _by_board_or_convener,
    OUTCOME_REQUESTED: _both(_by_endorsed, _by_person),
    BODY_CLAIMED: _both(_by_endorsed, _by_owner),
    ROW_REDACTED: _redaction,
}
# every other kind by its writer (kinds.WRITERS): anyone's is not judged
for _kind, _writer in WRITERS.items():
    if _kind not in RULES and _writer != ANYONE:
        RULES[_kind] = _by_board_or_holder if _writer == BOARD_WRITER else _by_endorsed
# the kinds whose rows change what the fold knows
STATE_KINDS = frozenset(
    {
        *KEY_KINDS,
        POSITION_FILLED,
        POSITION_VACATED,
        SCHEDULE_DECLARED,
        *grants.KINDS,
        *delegates.KINDS,
    }
)
KINDS = frozenset({*RULES, *STATE_KINDS})  # every kind the fold reads
