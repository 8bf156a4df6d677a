"""`hale dna whoami` and `hale dna key …`: the writer's key, and keys bound in the record.

`whoami` prints who this user writes as, the key its rows are signed with
(record/keys.py says which), and, inside a project, what the record binds
to that key and which positions its identity holds. `key register`,
`key revoke`, `key rotate` and `key list` write and read the record's
bindings (`key.registered`, `key.revoked`; record/trust.py has the rules): a
writer registers its own key (bound by itself: it binds no name, and proves
only the rows it signs), the Board binds anyone's (and so does a delegate the
Board named with `key delegate`, record/delegates.py), and the Board's root
key hands itself on (`rotate`) as signed rows. Each verb is judged before it writes and says why when it is
refused (exit 1).
"""

from __future__ import annotations

from typing import Any

import click

from hale_runtime.cli.common import EXIT_USAGE, fail, json_option


@click.command("whoami")
@json_option
def whoami(as_json: bool) -> None:
    """Print who you write as and the key your rows are signed with."""
    from hale_runtime.project import NotAProject, find_root
    from hale_runtime.record import Record, keys
    from hale_runtime.record.identity import clone_id, default_who
    from hale_runtime.record.trust import identity

    try:
        record: Record | None = Record.open(find_root())
    except NotAProject:
        record = None
    if record is not None:
        from hale_runtime.cli.organism import sync_quietly

        sync_quietly(record)  # what the record binds, as the remote has it
    who = record.who if record is not None else default_who("<clone>")
    if not as_json:
        click.echo(f"identity: {identity(who)} (rows name {who})")
    try:
        key = keys.user_key()
    except keys.KeyUnusable as unusable:
        fail(f"no signing key: {unusable}")
    if as_json:
        said = standing(record.trust, who, key.fingerprint) if record is not None else []
        from hale_runtime.cli.shapes import emit

        emit({
            "identity": identity(who),
            "who": who,
            "key": {"fingerprint": key.fingerprint, "source": keys.tilde(key.source)},
            "record": said[0].removeprefix("record: ") if said else None,
            "holds": _held(record.trust, who) if record is not None else [],
        })  # fmt: skip
        return
    click.echo(f"key: {key.fingerprint} (ed25519, {keys.tilde(key.source)})")
    if key.note:
        click.echo(f"  {key.note}")
    if record is not None:
        clone_id(record.repo)
        for line in standing(record.trust, who, key.fingerprint):
            click.echo(line)


def standing(trust: Any, who: str, fingerprint: str) -> list[str]:
    """What the record binds to this writer's key, and what its identity holds."""
    from hale_runtime.record.trust import identity

    name = identity(who)
    if not trust.genesis:
        return [
            "record: no genesis yet, so nothing is judged "
            "(`hale dna upgrade --genesis-key <fingerprint>` names its root of trust)"
        ]
    found = trust.keys.get(fingerprint)
    if fingerprint == trust.root:
        rotated = fingerprint != trust.genesis
        bound = (
            "your key is the Board's root key" if rotated else "your key is the record's genesis"
        )
        if not trust.holders.get("board"):
            bound += ", and holds the Board until the Board is filled"
    elif found is None:
        bound = "your key is not registered (`hale dna key register`)"
    elif found.revoked:
        bound = f"your key was {found.identity}'s, and is revoked"
    elif found.identity != name:
        bound = f"your key is {found.identity}'s, not {name}'s"
    elif found.endorsed:
        bound = f"your key is {name}'s, registered by the Board"
    else:
        bound = (
            "your key is registered by itself: it proves the rows it signs, and binds no "
            f"name until the Board endorses it as {name}'s"
        )
    lines = [f"record: {bound}"]
    held = _held(trust, who)
    if held:
        lines.append(f"holds: {', '.join(held)}")
    from hale_runtime.record.delegates import delegate_of

    by = delegate_of(trust, who, fingerprint)
    if by and not trust.is_board(who, fingerprint):
        lines.append(f"endorses: others' keys, as the Board delegated to {by} (endorse/{by})")
    return lines


def _held(trust: Any, who: str) -> list[str]:
    """The positions `who`'s identity holds, as position:<name>."""
    from hale_runtime.record.trust import identity

    name = identity(who)
    return sorted(f"position:{p}" for p, h in trust.holders.items() if h and identity(h) == name)


@click.group("key")
def key() -> None:
    """The keys the record binds to identities."""


@key.command("register")
@click.argument("identity", required=False)
@click.argument("public", required=False)
def register(identity: str | None, public: str | None) -> None:
    """Bind a key to an identity: yours to you, or (as the Board) PUBLIC to IDENTITY.

    PUBLIC is an OpenSSH public key line (`ssh-ed25519 AAAA…`), or the
    fingerprint of a key its owner registered already."""
    from hale_runtime.record import keys
    from hale_runtime.record.signing import key_of
    from hale_runtime.record.trust import KEY_REGISTERED
    from hale_runtime.record.trust import identity as identity_of

    record = synced_record()
    signer = record.signer
    if signer is None:
        fail(f"no signing key: {record.unsigned_why}")
    trust = record.trust
    me = identity_of(record.who)
    name = identity or me
    raw = signer.public if public is None else _public(trust, public)
    if raw is None:
        fail(f"`{public}` is no ed25519 public key nor a registered fingerprint", EXIT_USAGE)
    fingerprint = keys.fingerprint(raw)
    if not trust.genesis:
        fail("the record has no genesis yet: `hale dna upgrade --genesis-key <fingerprint>`")
    own = trust.key_of(signer.fingerprint, record.who)
    strong = (
        trust.is_board(record.who, signer.fingerprint)
        or trust.is_genesis(record.who, signer.fingerprint)
        or bool(own and own.endorsed)
    )
    bound = "endorsed" if strong else "self"
    held = trust.key_of(fingerprint, name)
    if held is not None and (held.endorsed or not strong):
        how = "endorsed" if held.endorsed else "registered by itself"
        click.echo(f"key:{fingerprint} is {name}'s already, {how}; nothing written")
        return
    body = {"identity": name, "public": keys.encode_public(raw), "bound": bound}
    write_judged(record, KEY_REGISTERED, key_of(fingerprint), body, "key")
    how = "endorsed" if strong else "registered by itself (it binds no name until endorsed)"
    if strong and name != me and not trust.is_board(record.who, signer.fingerprint):
        from hale_runtime.record.delegates import delegate_of

        by = delegate_of(trust, record.who, signer.fingerprint)
        how += f" by {by}, the Board's delegate" if by else ""
    click.echo(f"key:{fingerprint} is {name}'s, {how} (key.registered)")
    landed(record)


@key.command("revoke")
@click.argument("fingerprint")
@click.option("--why", default="", help="what to remember about it")
def revoke(fingerprint: str, why: str) -> None:
    """Revoke a key: rows it signs later prove nobody."""
    from hale_runtime.record.signing import key_of
    from hale_runtime.record.trust import KEY_REVOKED

    record = synced_record()
    fingerprint = fingerprint.removeprefix("key:")
    found = record.trust.keys.get(fingerprint)
    if found is None:
        fail(f"the record binds no key {fingerprint} (`hale dna key list`)")
    body = {"identity": found.identity, **({"why": why} if why else {})}
    write_judged(record, KEY_REVOKED, key_of(fingerprint), body, "key")
    click.echo(f"key:{fingerprint} of {found.identity} is revoked (key.revoked)")
    landed(record)


@key.command("rotate")
@click.argument("public")
def rotate(public: str) -> None:
    """Hand your key's standing to PUBLIC (an OpenSSH public key line) and revoke yours.

    The Board's root key hands on the root; an endorsed key, its endorsement."""
    from hale_runtime.record import keys
    from hale_runtime.record.signing import key_of
    from hale_runtime.record.trust import KEY_REGISTERED, KEY_REVOKED, identity

    record = synced_record()
    signer = record.signer
    if signer is None:
        fail(f"no signing key: {record.unsigned_why}")
    raw = keys.decode_public(public)
    if raw is None:
        fail(f"`{public}` is no ed25519 public key", EXIT_USAGE)
    trust, name, new = record.trust, identity(record.who), keys.fingerprint(raw)
    if new == signer.fingerprint:
        fail("key rotate: that is the key you sign with now; name the new one")
    root = signer.fingerprint == trust.root
    body = {"identity": name, "public": keys.encode_public(raw),
            "bound": "board" if root else "endorsed"}  # fmt: skip
    rows = [(KEY_REGISTERED, key_of(new), body),
            (KEY_REVOKED, key_of(signer.fingerprint), {"identity": name, "why": "rotated"})]  # fmt: skip
    from hale_runtime.record.errors import RowRefused

    try:
        record.append_many(rows)
    except RowRefused as refused:
        fail(f"key rotate: {refused}")
    what = "the Board's root" if root else f"{name}'s endorsement"
    click.echo(f"key:{new} holds {what}; key:{signer.fingerprint} is revoked (key.registered, "
               "key.revoked). Sign with the new key from now on (HALE_DNA_KEY)")  # fmt: skip
    landed(record)


@key.command("delegate")
@click.argument("to")
@click.option("--revoke", is_flag=True, help="end the delegation")
def delegate(to: str, revoke: bool) -> None:
    """As the Board, let TO endorse keys (`key register NAME PUBLIC`) in the Board's stead.

    TO is a position (`position:editor`, whoever holds it) or an identity (`bob`);
    `--revoke` ends it: its later endorsements bind nothing."""
    from hale_runtime.record.delegates import key_of
    from hale_runtime.record.kinds import ENDORSE_DELEGATED, ENDORSE_REVOKED

    record = synced_record()
    if not record.trust.genesis:
        fail("a delegation is proven by key: the record has no genesis yet (`hale dna upgrade`)")
    kind = ENDORSE_REVOKED if revoke else ENDORSE_DELEGATED
    write_judged(record, kind, key_of(to), {"to": to, "by": record.who}, "key delegate")
    said = "endorses no keys from now on" if revoke else "endorses keys in the Board's stead"
    click.echo(f"{key_of(to)}: {to} {said} ({kind})")
    landed(record)


@key.command("list")
@json_option
def list_keys(as_json: bool) -> None:
    """Every key the record binds, with its identity."""
    record = synced_record()
    trust = record.trust
    if as_json:
        from hale_runtime.cli.documents import keys_json
        from hale_runtime.cli.shapes import emit

        emit(keys_json(trust))
        return
    if not trust.keys:
        click.echo("keys: none bound (`hale dna upgrade` makes your key the record's genesis)")
        return
    click.echo(f"keys: {len(trust.keys)}")
    for fingerprint, k in trust.keys.items():
        how = "genesis" if fingerprint == trust.genesis else "endorsed" if k.endorsed else "self"
        how += ", root" if fingerprint == trust.root != trust.genesis else ""
        state = ", revoked" if k.revoked else ""
        click.echo(f"  {fingerprint}  {k.identity} ({how}{state})")
    if trust.delegates.given:
        click.echo(f"delegates: {', '.join(sorted(trust.delegates.given))} endorse keys")


def synced_record():
    from hale_runtime.cli.organism import sync_quietly
    from hale_runtime.project import find_root
    from hale_runtime.record import Record

    record = Record.open(find_root())
    sync_quietly(record)  # judge against the chain as the remote has it
    return record


def _public(trust: Any, text: str) -> bytes | None:
    """A public key given whole, or by the fingerprint of one the record holds."""
    from hale_runtime.record import keys

    found = trust.keys.get(text.removeprefix("key:"))
    return keys.decode_public(found.public) if found is not None else keys.decode_public(text)


def write_judged(record: Any, kind: str, row_key: str, body: dict[str, Any], verb: str) -> None:
    """Write one row of authority, judged first: refused, it writes nothing and
    says why after `verb` (exit 1). The caller says what it wrote, then `landed`."""
    why = record.judge(kind, row_key, body)
    if why:
        fail(f"{verb}: {why}")
    record.append(kind, row_key, body)


def landed(record: Any) -> None:
    """Exit 1 saying so when the row just written has not reached the remote."""
    from hale_runtime.cli.organism import exit_unless_landed

    exit_unless_landed(record)


def make_genesis(record: Any, named: str | None = None) -> str:
    """Register this writer's key as the record's genesis, unless it has one;
    the line saying so ("" when the record had one already). `named`: the key
    the operator named for it (a fingerprint or public key), which must be theirs."""
    from hale_runtime.record import keys
    from hale_runtime.record.signing import key_of
    from hale_runtime.record.trust import KEY_REGISTERED, identity

    if record.trust.genesis:
        return ""
    signer = record.signer
    if signer is None:
        fail(f"no signing key for the record's genesis: {record.unsigned_why}")
    if named is not None:
        raw = keys.decode_public(named)
        given = keys.fingerprint(raw) if raw is not None else named.removeprefix("key:")
        if given != signer.fingerprint:
            fail(
                f"--genesis-key {named} is not the key you sign with ({signer.fingerprint}); "
                "run this where that key signs (HALE_DNA_KEY)"
            )
    name = identity(record.who)
    body = {"identity": name, "public": keys.encode_public(signer.public), "bound": "genesis"}
    record.append(KEY_REGISTERED, key_of(signer.fingerprint), body)
    return (
        f"record: genesis is {name}'s key {signer.fingerprint} (key.registered); "
        "it holds the Board until the Board is filled"
    )
