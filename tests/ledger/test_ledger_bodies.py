"""Several bodies' heads over one record and one PostgreSQL, their legs working
through a ledger adoption and its abandonment (issue 35 "nothing lost",
issue 32 item 3): gamma carries the adoption out, alpha's and beta's running
bodies follow it at their next step 4 (no restart), the legs' signed batches
are carried whole, and every outcome a leg was told "submitted" is in the
record once, proven by its head's signature, and settled once.

The bodies run in this process (each its own Record, memory connection, head
served on loopback and ledger keeper), on one clone: the heads' appends to
the shared ledger table interleave as separate nodes' do."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import pytest
from ask_helpers import Project, make_project, relayed  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pg import fresh_database, shared_postgres
from waiting import wait_for

from hale_runtime.head import Head, HeadClient, HeadError, HeadServer
from hale_runtime.ledger import keeper
from hale_runtime.ledger.keeper import LedgerKeeper
from hale_runtime.memory import open_memory
from hale_runtime.record import Record
from hale_runtime.record.keys import SigningKey, encode_public
from hale_runtime.record.kinds import KEY_REGISTERED
from hale_runtime.record.signing import attribute, key_of

OWNERS = ("alpha", "beta", "gamma")
PER_OWNER = 18  # judgments for alpha's and beta's legs


class Body:
    def __init__(self, root: Path, owner: str, dsn: str, key: SigningKey):
        self.owner, self.who = owner, f"{owner}@box:c0ffee0{OWNERS.index(owner)}"
        self.record = Record.open(root, who=self.who, sign=key)
        self.memory = open_memory(dsn)
        self.keeper = LedgerKeeper(self.record, self.memory, self.who, owner, 30, 30, pytest.fail)
        head_record = Record.open(root, who=self.who, sign=key)
        self.server = HeadServer(lambda: Head(head_record, open_memory(dsn), 30, owner=owner))
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        self.memory.close()


@pytest.fixture
def bodies(tmp_path: Path):
    dsn = fresh_database(shared_postgres())
    project = Project(make_project(tmp_path / "p"))
    memory = open_memory(dsn)
    memory.migrate()
    memory.close()
    nodes = {}
    for position, owner in (("leader", "alpha"), ("ops", "beta")):
        body = {"position": position, "holder": f"{owner}-body", "owner": owner}
        project.record().append("position.filled", position, body)
    keys = {o: SigningKey(Ed25519PrivateKey.generate(), Path(o)) for o in OWNERS}
    first = Record.open(project.root, who="alpha@box:c0ffee00", sign=keys["alpha"])
    for n, owner in enumerate(OWNERS):
        key = keys[owner]
        # alpha's key is the genesis (the Board while unheld), and it binds the others:
        # every body writes a node's rows, which need a key the record binds
        body = {"identity": owner, "public": encode_public(key.public),
                "bound": "genesis" if n == 0 else "endorsed"}  # fmt: skip
        first.append(KEY_REGISTERED, key_of(key.fingerprint), body)
    for owner in ("alpha", "beta"):
        node = project.node(f"{owner}@box:c1", leader=False, owner=owner, sign=keys[owner])
        for i in range(PER_OWNER):
            to = {} if owner == "alpha" else {"to": "position:ops"}
            assert node.offer(f"{owner}-{i}", objective=f"judge {owner} {i}", judgment=True, **to)
        nodes[owner] = node
    running = {o: Body(project.root, o, dsn, keys[o]) for o in OWNERS}
    yield project, running, nodes, dsn
    for body in running.values():
        body.stop()


def leg(
    body: Body, name: str, submitted: list[str], stop: threading.Event, limit: list[int]
) -> None:
    """Claim and settle until stopped, idling while `limit[0]` attempts are submitted
    (the test moves the limit on phase by phase, so work is left for each)."""
    client = HeadClient(body.server.url, body.server.token)
    client.register(name)
    while not stop.is_set():
        if len(submitted) >= limit[0]:
            stop.wait(0.02)
            continue
        try:
            got = client.call("dna.attempt.claim")
            if not got.get("attempt"):
                stop.wait(0.05)
                continue
            lease = {"attempt": got["attempt"], "token": got["token"]}
            done = client.call("dna.attempt.outcome", outcome="succeeded", **lease)
        except HeadError:
            continue  # refused or fenced: never told "submitted", so nothing owed
        assert done["submitted"] == "succeeded"
        submitted.append(got["attempt"])
    client.close()


def test_legs_through_an_adoption_and_an_abandonment_lose_nothing(bodies, monkeypatch) -> None:
    project, running, nodes, dsn = bodies
    monkeypatch.setattr(keeper, "WINDOW", 6)  # small reads: the heads' batches get cut
    monkeypatch.setattr(keeper, "CARRY_BATCH", 6)
    carried: list[int] = []
    alpha, beta, gamma = (running[o] for o in OWNERS)
    memory = open_memory(dsn)
    memory.set_holder("ops", "leg:beta-0")
    submitted: list[str] = []
    stop = threading.Event()
    limit = [PER_OWNER // 3]  # before the adoption; then through the ledger; then all
    legs = [
        threading.Thread(target=leg, args=(body, f"leg:{body.owner}-{n}", submitted, stop, limit))
        for body in (alpha, beta) for n in range(2)
    ]  # fmt: skip
    for thread in legs:
        thread.start()
    try:
        wait_for(lambda: len(submitted) >= PER_OWNER // 3, 120, "legs at work before the adoption")
        asked = alpha.record.append("ledger.adopt.requested", "ledger/x1", {"by": "a"})
        assert gamma.keeper.answer([asked], lambda: None) == "adopted"  # gamma carries it out
        gamma.server.use_ledger(gamma.keeper.fence)
        for body in (alpha, beta):  # each running body, at its next step 4
            assert body.keeper.follow(body.server.use_ledger) == "adopted"
            assert body.keeper.follow(body.server.use_ledger) == ""
        assert {memory.claim(f"owner/{o}").holder for o in OWNERS} == {
            b.who for b in running.values()
        }
        limit[0] = PER_OWNER  # these go through the ledger

        def carried_some() -> bool:
            for body in running.values():
                carried.append(body.keeper.carry())
            return len(submitted) >= PER_OWNER and sum(carried) > 0

        wait_for(carried_some, 120, "legs at work through the ledger")
        # the Board asks (alpha's key is the genesis)
        asked = alpha.record.append("ledger.abandon.requested", "ledger/x2", {"by": "a"})
        gamma.server.use_ledger(None)
        assert gamma.keeper.answer([asked], lambda: None) == "abandoned"
        for body in (alpha, beta):
            assert body.keeper.follow(body.server.use_ledger) == "abandoned"
        limit[0] = 2 * PER_OWNER  # the rest, back on git
        wait_for(lambda: len(submitted) >= 2 * PER_OWNER, 120, "every attempt submitted")
    finally:
        stop.set()
        for thread in legs:
            thread.join(60)
    assert memory.ledger_count() == 0  # nothing left behind
    assert sum(carried) > 0  # the legs' rows went through the ledger
    record = Record.open(project.root)
    asks = record.rows(kind="attempt.outcome.requested")
    assert Counter(r.key for r in asks) == Counter(submitted)  # each once, none lost
    assert len(set(submitted)) == 2 * PER_OWNER
    assert not [r for r, _ in record.poison_rows() if r.kind == "attempt.outcome.requested"]
    trust = record.trust
    every = record.scan(0, poison=True, signatures=True)
    proven = {
        r.id: p.fingerprint for r, p in attribute(every, trust.record, record.get(trust.record).seq)
    }
    assert all(proven.get(r.id) for r in asks)  # each proven by its head's signature
    settled: Counter[str] = Counter()
    for row in asks:
        owner = row.who.split("@")[0]
        said = nodes[owner].settler.on_outcome_requested(relayed(row))
        settled[row.key] += said == "settled succeeded"
    assert settled == Counter({a: 1 for a in submitted})
    memory.close()
