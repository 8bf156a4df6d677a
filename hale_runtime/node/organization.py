"""The organization process: the genome loaded, the nerves heard, each message
handed to the topic its subject names (less the owner's prefix: over a
shared record each host relays to its own organization only, relay.py).

`python -m hale_runtime.node.organization --root R --genome G [--ready-fd N]` (memory and
nerves from HALE_DNA_MEMORY / HALE_DNA_NERVES, the holder from
HALE_DNA_NODE, all set by the host). It loads the catalog from the genome
folder, subscribes to its owner's subjects (every subject, without an owner),
and loops: poll the nerves, dispatch
each message by topic (`hale_runtime.nerves.Dispatcher`), until SIGTERM.

Once the catalog loaded, the organization builds one workflow engine from
one plugin manager: each part it hosts gives its performer plugins first
(the asks: the legs' agent kind and the model provider; the Scheduler: the
organism with its `walk`, `ratify` and `hat` steps), the genome gives the
budget policy, and only then does the engine exist, so no part overwrites
another's performer. The parts then plug in on that engine (asks/plug.py,
schedules/plug.py); their ticks run after each poll (`tickers`). Without a
catalog there is no engine and no part: each ask is refused as a row
naming why no genome loads (unadmitted.py), never left waiting. The folds
the parts keep start from the newest checkpoint (checkpoint.py) and are
checkpointed again as the record grows (the last ticker). The organization itself answers NodePingRequested
(below). Nerves or memory that fail end the process: an organization that
cannot hear or claim stops rather than act. One runs per clone at a time
(organization_lock.py): claims name the clone, so two would act as one.

Nothing a row says stops it. A relayed request whose row does not fit its
kind is not handed on; a message whose handling raises anything but the
spine's own failures (`SPINE`) has its row quarantined; a tick that raises
is said once and the loop goes on. After each round the parts that apply
rows (`appliers`: each has `take_poison()`) hand over what they could not
apply, and the quarantine answers every poison row once (quarantine.py).

Acts that must not happen twice go through `once(key, act)`: take the claim
in memory (a `claim.taken` row), sync the record and look for the answer a
node that held the claim before may have written, act and write the answer,
sync so the remote holds it, then release (`claim.released`). A claim held
elsewhere is left alone: the request comes back with the next relay.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hale_runtime.errors import one_line
from hale_runtime.memory import Fenced, MemoryFailed, memory_dsn, nerves_dsn, open_memory
from hale_runtime.nerves import Dispatcher, Message, NervesFailed, open_nerves
from hale_runtime.node import organization_lock
from hale_runtime.node.checkpoint import Checkpoint, Checkpointer, Checkpoints, Fold, place_for
from hale_runtime.node.lease import OWNER_ENV
from hale_runtime.node.quarantine import Quarantine
from hale_runtime.node.relay import owner_subject
from hale_runtime.node.settings import Settings
from hale_runtime.node.syncing import pull as locked_pull
from hale_runtime.node.syncing import sync as locked_sync
from hale_runtime.record import Record, RecordError, Row, kinds
from hale_runtime.record.identity import NODE_ENV

POLL_S = 0.5
LOCK_WAIT_S = 10.0  # the host cleared the way; this only covers a host that did not
SPINE = (NervesFailed, MemoryFailed, Fenced, RecordError)  # the failures that stop it
PAUSE_ENV = "HALE_DNA_TEST_ACT_PAUSE"  # test hook: seconds to hold a claim before acting


class Organization:
    """What the engine and the loci are hosted by."""

    def __init__(self, root: Path, genome: Path, holder: str):
        self.root, self.genome, self.holder = root, genome, holder
        self.record = Record.open(root)
        self.memory = open_memory(memory_dsn(root))
        self.nerves = open_nerves(nerves_dsn(root))
        self.dispatcher = Dispatcher()
        self.catalog: Any = None
        self.engine: Any = None  # the one workflow engine, once the catalog loaded (`_plug`)
        self.stopping = False
        self.tickers: list[Callable[[], None]] = []  # run after each poll (the loci's ticks)
        self.settings = Settings.from_env()
        self.body_token = int(os.environ.get("HALE_DNA_BODY_TOKEN") or 0)  # the lease's epoch
        self.folds: dict[str, Fold] = {}  # what a checkpoint holds, by name (the plugs add them)
        place = place_for(self.memory, memory_dsn(root), self.record.repo.path)
        self.checkpoints = Checkpoints(place, _say)
        self.checkpoint: Checkpoint | None = None  # the one this start resumed from
        self.quarantine = Quarantine(self.record, self.memory, holder, sync=locked_sync,
                                     ttl_s=self.settings.claim_ttl_s)  # fmt: skip
        self.appliers: list[Any] = []  # parts that apply rows, each with take_poison()
        self.said: set[str] = set()
        self.prefix = owner_subject(os.environ.get(OWNER_ENV))  # what the host relays to us
        self._fence_writes()

    def _fence_writes(self) -> None:
        """Under a host (a body token), every row carries the lease's epoch and
        every append and effect first asserts the lease (fence.guard)."""
        if not self.body_token:
            return
        from hale_runtime.node.fence import guard
        from hale_runtime.node.lease import lease_ref

        owner = os.environ.get(OWNER_ENV) or None
        self.record.epoch = (lease_ref(owner), self.body_token)
        self.record.guard = guard(self.root, self.holder, self.body_token, owner,
                                  self.settings.margin_s)  # fmt: skip

    def resumed(self, fold: str) -> tuple[int, Any] | None:
        """(seq, snapshot) of `fold` in the checkpoint this start resumed from."""
        return self.checkpoint.part(fold) if self.checkpoint is not None else None

    def newest(self, fold: str) -> tuple[int, Any] | None:
        """(seq, snapshot) of `fold` in the newest usable checkpoint, read now
        (where a fold whose round failed starts again)."""
        found = self.checkpoints.load(self.record)
        return found.part(fold) if found is not None else None

    def load(self) -> None:
        """Load the genome's catalog and plug in what runs on it.

        The host built the genome before starting us; a catalog that still
        does not load is reported, and the last good genome's is served
        (node/fallback.py), or none when no genome loads: then each ask
        is refused with why (node/unadmitted.py).
        """
        from hale_runtime.node import unadmitted
        from hale_runtime.node.fallback import catalog_or_why

        # a genome whose catalog fails (its limits, say) falls back to the last good one
        self.catalog, why = catalog_or_why(self.root, self.genome, _say)
        self.dispatcher.on("NodePingRequested", self._ping)
        self.checkpoint = self.checkpoints.load(self.record)
        if self.catalog is not None:  # the engine and the loci run on the catalog
            _plug(self)
        else:  # no genome loads: every ask is refused as a row, never left waiting
            unadmitted.plug(self, why)
        self.checkpoint = None  # restored: its parts are the folds' now
        self.tickers.append(Checkpointer(self.record, self.checkpoints, self.folds).tick)

    def sync(self) -> None:
        """Sync the record with its remote, under the clone's sync lock (RecordError)."""
        locked_sync(self.record)

    def pull(self) -> None:
        """The remote's rows in, nothing pushed, under the clone's sync lock (RecordError)."""
        locked_pull(self.record)

    def once(self, key: str, stem: str, row_key: str, act: Callable[[], None]) -> bool:
        """Run `act` under claim `key` unless the record answered it; whether it ran."""
        grant = self.memory.take(key, self.holder, self.settings.claim_ttl_s)
        if grant is None:
            return False
        locked_sync(self.record)
        if any(r.key == row_key for r in self._answers(stem, row_key)):
            self.memory.release(key, self.holder, grant.token)
            return False
        body = {"holder": self.holder, "token": grant.token, "until": grant.until}
        self.record.append(kinds.CLAIM_TAKEN, key, body)
        time.sleep(float(os.environ.get(PAUSE_ENV) or 0))
        try:
            self.memory.check_fence(key, grant.token)
        except Fenced as fenced:
            _say(f"not acting: {fenced}")
            return False
        if self.record.guard is not None:
            self.record.guard()
        act()
        locked_sync(self.record)
        if self.memory.release(key, self.holder, grant.token):
            self.record.append(kinds.CLAIM_RELEASED, key, {"holder": self.holder})
            locked_sync(self.record)
        return True

    def _answers(self, stem: str, row_key: str) -> list:
        from hale_runtime.node.relay import ANSWERS

        answering = [f"{stem}.{ending}" for ending in ANSWERS]
        rows = self.record.rows(kind=answering, key_prefix=row_key)
        return [r for r in rows if not self.record.stale(r)]

    def _ping(self, message: Message) -> None:
        key = str(message.body.get("key", ""))

        def answer() -> None:
            body = {"by": self.holder, "request": message.body.get("row")}
            self.record.append(kinds.NODE_PING_ANSWERED, key, body)

        self.once(f"ping/{key}", "node.ping", key, answer)

    def serve(self, ready_fd: int | None = None) -> None:
        """Hear and dispatch until told to stop; say `ready` on `ready_fd` once hearing."""
        subscription = self.nerves.subscribe(self.prefix)
        if ready_fd is not None:
            os.write(ready_fd, b"ready\n")
            os.close(ready_fd)
        while not self.stopping:
            # SIGTERM sets `stopping`: the wait ends then, not at POLL_S
            self.round(subscription.poll(POLL_S, until=lambda: self.stopping))

    def round(self, messages: list[Message]) -> None:
        """Hand on what was heard, tick, and quarantine what could not be applied."""
        if self.record.guard is not None:
            self.record.guard()  # a body woken past its lease goes no further
        for message in messages:
            self.hear(_unprefixed(message, self.prefix))
        for tick in self.tickers:
            try:
                tick()
            except SPINE:
                raise
            except Exception as error:  # a part's tick: said once, the loop goes on
                self._say_once(f"a tick failed: {one_line(error)}")
        self.quarantine_poison()

    def hear(self, message: Message) -> None:
        """Dispatch one message, unless the row it relays is poison; a handler that
        raises (but for the spine's failures) has that row quarantined."""
        row = self._relayed(message)
        if row is not None and (self.record.poison_of(row) or self.quarantine.holds(row.id)):
            return
        try:
            self.dispatcher.dispatch(message)
        except SPINE:
            raise
        except Exception as error:  # the row's content made it raise: poison
            if row is None:
                self._say_once(f"a {message.subject} message failed: {one_line(error)}")
            else:
                self.quarantine.report(row.id, row.kind, one_line(error))

    def quarantine_poison(self) -> int:
        """Take what each part could not apply and answer every poison row once."""
        for part in self.appliers:
            for row_id, (kind, why) in part.take_poison().items():
                self.quarantine.report(row_id, kind, why)
        return self.quarantine.write()

    def _relayed(self, message: Message) -> Row | None:
        row_id = message.body.get("row") if isinstance(message.body, dict) else None
        return self.record.get(row_id) if isinstance(row_id, str) else None

    def _say_once(self, line: str) -> None:
        if line not in self.said:
            self.said.add(line)
            _say(line)


def _unprefixed(message: Message, prefix: str) -> Message:
    """The message as its topic reads it: the owner's prefix taken off its subject."""
    if prefix and message.subject.startswith(prefix):
        return Message(message.id, message.subject[len(prefix) :], message.body)
    return message


def _say(line: str) -> None:
    print(f"hale organization: {line}", file=sys.stderr, flush=True)


def _plug(org: Organization) -> None:
    """One engine from one plugin manager, then the parts that run on it."""
    from hale_runtime.asks import plug as asks
    from hale_runtime.asks.genome import read_genome
    from hale_runtime.engine import Engine
    from hale_runtime.performers import Performers, plugin_manager
    from hale_runtime.readings import plug as readings
    from hale_runtime.schedules import plug as schedules
    from hale_runtime.schedules.ratify import OrganismPlugin

    genome = read_genome(org.genome)
    organism = OrganismPlugin(org.record)
    performers = Performers(plugin_manager(*asks.plugins(), organism))
    from hale_runtime.node.board import teller

    org.engine = Engine(org.record, org.memory, performers, budget=genome.budget,
                        resume=org.resumed("engine"), tell_board=teller(org.nerves, _say),
                        restart=lambda: org.newest("engine"))  # fmt: skip
    org.folds["engine"] = org.engine
    org.tickers.append(org.engine.pump)
    org.appliers.append(org.engine)
    asks.plug(org, genome)
    schedules.plug(org, organism)
    readings.plug(org)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hale-organization")
    parser.add_argument("--root", required=True)
    parser.add_argument("--genome", required=True)
    parser.add_argument("--ready-fd", type=int, default=None)
    args = parser.parse_args(argv)
    holder = os.environ.get(NODE_ENV, "")
    held = organization_lock.take(Path(args.root), LOCK_WAIT_S)  # kept for the process's life
    if held is None:
        print("hale organization: stopping: another organization runs in this clone",
              file=sys.stderr)  # fmt: skip
        return 1
    try:
        org = Organization(Path(args.root), Path(args.genome), holder)
        signal.signal(signal.SIGTERM, lambda *_: setattr(org, "stopping", True))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        org.load()
        org.serve(args.ready_fd)
    except (NervesFailed, MemoryFailed, Fenced, RecordError) as error:
        print(f"hale organization: stopping: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # the genome's own failures: report, never a traceback
        print(f"hale organization: stopping: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
