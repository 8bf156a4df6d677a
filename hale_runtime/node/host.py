"""The host: takes the body lease, starts the fence and the organization, and
ticks.

Start: open memory and the nerves (refusing an unmigrated memory), take
the lease (exit 3 when it is another clone's, or when a live body of the
other form, with or without an owner, shares the record: body_form.py),
start the fence
(which renews it from then on), choose and build the genome (genome.py: the
forge's default branch; a `node.build_failed` row and the last good genome
when it does not build), start the organization, write `node.started`.
Then, once every `tick_s`, the seven steps of a node, in order:

  1. assert the lease (the local mirror the fence keeps; no network);
  2. relay unanswered request rows onto the nerves (relay.py);
  3. sync the record with its remote;
  4. erase the protected bodies the record's redactions name from this
     clone (record/protected.py), and project stamped rows into memory's
     graph (projection.py), which erases them from memory too;
  5. every `poll_s`, fetch the forge's default branch (without a forge, read
     the local default branch): moved -> exit 75;
  6. assert the lease again (the sync may have outlasted it);
  7. tell the heads what landed (the head keeps the last seq), answer restart
     requests (`restart.requested <holder>`), note the tick in memory;
     keep the application it runs (`hale dna dev`) and act on the readings
     naming its instance (instance.py);
     then, in the background, keep the git store packed (maintenance.py).

The host is split along its seams: its processes (processes.py), the
genome it serves (serving.py), its part in an adopted ledger
(ledger_steps.py), each a mixin of Host, and what ends it (stopping.py).
Everything that ends a node is a NodeStop with its exit code; the stop kills
the organization (at once when the lease is lost, after SIGTERM and a grace
otherwise), stops the fence, gives the lease back when it is still ours and
writes `node.stopped`. SIGTERM and SIGINT wake the sleep through a wakeup
pipe and stop cleanly.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hale_runtime import figures
from hale_runtime.memory import MemoryFailed, open_memory
from hale_runtime.memory.dsn import redact
from hale_runtime.memory.projection import ProjectionDiverged, project
from hale_runtime.memory.schema import latest
from hale_runtime.nerves import NervesFailed, open_nerves
from hale_runtime.node import children, genome
from hale_runtime.node.application import Application, AppSpec
from hale_runtime.node.body_form import live_beside, refusal
from hale_runtime.node.instance import Instance
from hale_runtime.node.lease import OWNER_ENV, BodyLease, Lease, LeaseHeld, LeaseUnprovable, now_ms
from hale_runtime.node.ledger_steps import LedgerSteps
from hale_runtime.node.maintenance import Maintenance
from hale_runtime.node.processes import TOKEN_ENV, Processes
from hale_runtime.node.quarantine import Quarantine
from hale_runtime.node.relay import RESEND_S, Relay
from hale_runtime.node.serving import Serving
from hale_runtime.node.settings import Settings
from hale_runtime.node.stopping import (
    EXIT_GENOME_MOVED,
    EXIT_LEASE_HELD,
    EXIT_OK,
    EXIT_REFUSED,
    NodeStop,
    node_key,
)
from hale_runtime.node.syncing import sync as locked_sync
from hale_runtime.record import Record, RecordError, Row, kinds, protected
from hale_runtime.record.identity import NODE_ENV, default_who

__all__ = ["EXIT_GENOME_MOVED", "EXIT_LEASE_HELD", "EXIT_OK", "EXIT_REFUSED", "TOKEN_ENV",
           "Host", "NodeStop", "node_key"]  # fmt: skip

# What starts the head beside the node (head/node.py's `start_head`, handed in by the
# command line): (root, memory dsn, holder, say) -> the serving head, or None.
StartHead = Callable[[Path, str, str, Callable[[str], None]], Any]


class Host(Processes, Serving, LedgerSteps):
    def __init__(
        self,
        root: Path,
        settings: Settings,
        memory: str,
        nerves: str,
        say=print,
        application: AppSpec | None = None,
        start_head: StartHead | None = None,
    ):
        self.root, self.settings, self.say = Path(root), settings, say
        self.start_head = start_head  # handed in (the head is a layer above the node)
        self.memory_dsn, self.nerves_dsn = memory, nerves
        self.record = Record.open(root)
        self.holder = os.environ.get(NODE_ENV) or default_who(self.record.clone)
        os.environ[NODE_ENV] = self.holder
        self.record.who = self.holder
        self.remote = self.record.remote()
        self.owner = os.environ.get(OWNER_ENV) or None
        self.lease = BodyLease(
            self.root,
            self.holder,
            self.remote,
            settings.lease_s,
            settings.git_timeout_s,
            self.owner,
        )
        self.token = 0
        self.relay = Relay(self.owner, RESEND_S)
        self.heads: list[Callable[[list[Row]], None]] = []  # step 7's hook
        self.fence = self.org = None
        self.served: genome.Genome | None = None
        self.forge: str | None = None
        self.forge_seen: str | None = None
        self.next_poll = 0.0
        self.landed = 0
        self.stopping: str | None = None
        self.warned: set[str] = set()
        self.memory = self.nerves = None
        self.quarantine: Quarantine | None = None  # what the projection could not apply
        self.maintenance: Maintenance | None = None
        self.app: Application | None = None  # the application under the host (dev)
        self.instance: Instance | None = None  # its events and the readings naming it
        if application is not None:
            self.app = Application(application, self._hale_dir() / "app", self.holder)

    # ---- the whole life --------------------------------------------------------

    def run(self) -> int:
        """Start, tick until something stops the node, stop; the exit code."""
        wake = self._install_signals()
        try:
            self.start()
            self.loop(wake)
        except NodeStop as stop:
            return self.shutdown(stop)
        except Exception as error:  # whatever else: stop in order, say it in one line
            return self.shutdown(NodeStop(EXIT_REFUSED, f"{type(error).__name__}: {error}"))
        return self.shutdown(NodeStop(EXIT_OK, self.stopping or "stopped"))

    def start(self) -> None:
        self._lock_clone()
        self.memory, self.nerves = self._open_stores()  # refuse before taking anything
        try:
            taken = self.lease.take()
            self._refuse_beside_other_form()
        except LeaseHeld as held:
            raise NodeStop(EXIT_LEASE_HELD, f"{held}; this record runs elsewhere") from None
        except LeaseUnprovable as error:
            raise NodeStop(EXIT_REFUSED, f"the body lease could not be taken: {error}") from None
        self.token = taken.token
        self.say(f"body: {self.holder} holds the lease (token {self.token})")
        self._spawn_fence()  # renewing from now: the sync below may take a while
        self._declare_epoch()  # syncs: the record may say a ledger was adopted
        self._hold_ledger()
        self._fence_ledger()
        self._check_stopping()
        self.served = self.choose_genome()
        self._check_stopping()
        self._spawn_organization()
        if self.app is not None:
            self.instance = Instance(self.app, self.record)  # events from here on are its
            self._start_application()
        os.environ[TOKEN_ENV] = str(self.token)  # the head's rows carry the epoch too
        self.head = None  # the head, for legs: started by what the caller handed in
        if self.start_head is not None:
            self.head = self.start_head(self.root, self.memory_dsn, self.holder, self.say)
        if self.head is not None:
            self.heads.append(self.head.tell)  # step 7: the head hears what landed
            if self.ledger.fence is not None:
                self.head.use_ledger(self.ledger.fence)
        body = {
            "genome": self.served.commit,
            "work_tree": self.served.work_tree,
            "memory": redact(self.memory_dsn),
            "nerves": redact(self.nerves_dsn),
            "token": self.token,
            "owner": self.owner,
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        self.record.append(kinds.NODE_STARTED, node_key(self.holder), body)
        self._sync()
        self.landed = self.record.stamped_count()
        self.say(f"genome: {self.served.label}")
        self.say(f"memory: {redact(self.memory_dsn)}\nnerves: {redact(self.nerves_dsn)}")
        self.say("running; Ctrl-C stops the node")

    def _declare_epoch(self) -> None:
        """The takeover reaches the chain before this body acts: every row written
        from here carries the lease's token as its epoch, and a `body.epoch` row
        says so, synced to the remote now, so a row a superseded body lands later
        is void wherever it is folded (record/epochs.py)."""
        self.record.epoch = (self.lease.ref, self.token)
        body = {"n": self.token, "holder": self.holder}
        try:
            # first the chain as the remote has it: a fresh clone learns the genesis its
            # signatures are bound to before it signs anything
            locked_sync(self.record)
            self.record.append(kinds.BODY_EPOCH, self.lease.ref, body)
            locked_sync(self.record)
        except RecordError as error:
            raise NodeStop(
                EXIT_REFUSED, f"the body's epoch did not reach the remote: {error}"
            ) from None

    def _lock_clone(self) -> None:
        """One host per clone: a second one here is refused (the same holder would
        otherwise take the lease from the first), while a restart after a crash
        finds the lock free, since the kernel drops it with the process."""
        path = self._hale_dir() / "host.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._clone_lock = open(path, "a+")
        try:
            fcntl.flock(self._clone_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._clone_lock.seek(0)
            pid = self._clone_lock.read().strip() or "?"
            why = f"a node already runs in this clone (pid {pid})"
            raise NodeStop(EXIT_LEASE_HELD, why) from None
        self._clone_lock.truncate(0)
        self._clone_lock.write(f"{os.getpid()}\n")
        self._clone_lock.flush()

    def loop(self, wake: int) -> None:
        next_tick = time.monotonic()
        while not self.stopping:
            began = time.monotonic()
            self.tick()
            figures.note("tick", ms=round((time.monotonic() - began) * 1000))
            next_tick = max(next_tick + self.settings.tick_s, time.monotonic())
            delay = next_tick - time.monotonic()
            if delay > 0 and select.select([wake], [], [], delay)[0]:
                os.read(wake, 512)

    def tick(self) -> None:
        """The seven steps of a node, in order (each step's time noted for a bench)."""
        steps: dict[str, float] = {}

        def step(name: str, act: Callable[[], object]) -> None:
            began = time.monotonic()
            act()
            steps[name] = round((time.monotonic() - began) * 1000)

        try:
            self.assert_lease()
            self._check_children()
            step("relay", lambda: self.relay.relay(self.record, self.nerves))
            self.assert_lease()  # a host paused mid-tick pushes nothing once woken past it
            step("sync", self._sync)
            step("erase", self._erase)
            step("ledger", self._keep_ledger)
            step("project", self._project)
            self._check_forge()
            self.assert_lease()
            step("heads", self._tell_heads)
            self._answer_restarts()
            self._keep_application()
            self.memory.upsert_node(f"node:{self.holder}", "node", self._heartbeat())
            self._maintain()
        except (MemoryFailed, NervesFailed) as error:
            raise NodeStop(EXIT_REFUSED, f"stores failed, so the node stops: {error}") from None
        except RecordError as error:
            raise NodeStop(EXIT_REFUSED, f"the record failed: {error}") from None
        figures.note("steps", **steps)

    # ---- the lease ---------------------------------------------------------------

    def assert_lease(self) -> None:
        """Stop unless this clone's mirror shows our lease live past the margin."""
        lease = self._mirror()
        if lease is None or lease.holder != self.holder or lease.token != self.token:
            shown = lease.describe() if lease else "gone"
            raise NodeStop(EXIT_LEASE_HELD, f"the body lease is now {shown}", lease_lost=True)
        left_ms = lease.until - now_ms()
        if left_ms <= self.settings.margin_s * 1000:
            why = f"the body lease was not renewed ({left_ms / 1000:.1f}s left); stopping"
            raise NodeStop(EXIT_REFUSED, why, lease_lost=True)

    def _refuse_beside_other_form(self) -> None:
        """Exit 3, the lease given back, beside a live body of the other form (body_form.py)."""
        found = live_beside(self.root, self.remote, self.owner, self.settings.git_timeout_s)
        if found is not None:
            self._release()
            raise NodeStop(EXIT_LEASE_HELD, refusal(self.owner, *found))

    def _mirror(self) -> Lease | None:
        try:
            return self.lease.local()
        except LeaseUnprovable:
            return None

    # ---- the other steps -----------------------------------------------------------

    def _open_stores(self):
        try:
            memory = open_memory(self.memory_dsn)
            have, want = memory.schema_version(), latest(memory.dialect)
            if have < want:
                shape = "no schema" if have == 0 else f"schema {have} of {want}"
                raise MemoryFailed(
                    f"{redact(self.memory_dsn)} has {shape}: run `hale dna memory migrate`"
                )
            return memory, open_nerves(self.nerves_dsn)
        except (MemoryFailed, NervesFailed) as error:
            raise NodeStop(EXIT_REFUSED, str(error)) from None

    def _sync(self) -> None:
        try:
            locked_sync(self.record)
        except RecordError as error:
            self._warn(f"the record did not sync: {error}")

    def _project(self) -> None:
        if self.quarantine is None:
            self.quarantine = Quarantine(
                self.record, self.memory, self.holder, locked_sync, find=False
            )
        q = self.quarantine
        try:
            project(
                self.record,
                self.memory,
                report=lambda row, why: q.report(row.id, row.kind, why),
                report_reset=self._warn,
            )
        except ProjectionDiverged as error:
            self._warn(str(error))
        if q.fold.waiting:
            q.write()

    def _erase(self) -> None:
        """Step 4: erase the protected bodies the record's redactions name, from this
        clone (the projection erases them from memory). Not while a repack of
        the store runs beside it; everything is looked at again once it ends."""
        if self.maintenance is not None and self.maintenance.running is not None:
            self._repacking = True
            return
        if getattr(self, "_repacking", False):
            self._repacking = False
            protected.look_again(self.record.repo.path)
        left = protected.erase(self.record.repo.path, protected.redacted_digests(self.record))
        if left:
            self._warn(f"redacted bodies still readable in this clone: {', '.join(left)}")

    def _tell_heads(self) -> None:
        stamped = self.record.stamped_count()
        if stamped > self.landed and self.heads:
            rows = self.record.rows(since=self.landed, stamped_only=True)
            for head in self.heads:
                head(rows)
        self.landed = stamped

    def _answer_restarts(self) -> None:
        row = self.relay.pending.get(("restart", self.holder))
        if row is None:
            return
        self.say(f"restarting the organization, as {row.who} asked")
        self._restart_organization()
        self.record.append(kinds.RESTART_ANSWERED, self.holder, {"request": row.id})
        self.relay.read(self.record)

    def _hale_dir(self) -> Path:
        return Path(self.record.repo.path) / "hale"

    def _heartbeat(self) -> dict:
        return {
            "last_tick": now_ms(),
            "genome": self.served.commit if self.served else "",
            "pid": os.getpid(),
            "token": self.token,
        }

    def _warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            print(f"hale: {message}", file=sys.stderr, flush=True)

    # ---- stopping ------------------------------------------------------------------

    def _install_signals(self) -> int:
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write)

        def stop(signum: int, _frame) -> None:
            self.stopping = f"stopped by {signal.Signals(signum).name}"

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        return read

    def _check_stopping(self) -> None:
        if self.stopping:
            raise NodeStop(EXIT_OK, self.stopping)

    def _maintain(self) -> None:
        """Then, off the tick's path, keep the git store packed (maintenance.py)."""
        if self.maintenance is None:
            self.maintenance = Maintenance(self.record.repo.path, self.memory, self.holder)
        try:
            self.maintenance.tick()
        except (OSError, subprocess.SubprocessError) as error:
            self._warn(f"maintenance of the git store failed: {error}")

    def shutdown(self, stop: NodeStop) -> int:
        """Stop the children, give the lease back when it is ours, write `node.stopped`."""
        if self.maintenance is not None:
            self.maintenance.stop()
        head = getattr(self, "head", None)
        if head is not None:
            head.stop()
        if getattr(self, "ledger", None) is not None:
            self.ledger.stop(stop.lease_lost or stop.code == EXIT_LEASE_HELD)
        grace = 0.0 if stop.lease_lost else self.settings.stop_grace_s
        self._stop_application(grace)
        children.stop(self.org, grace)
        if self.fence is not None:
            children.tell(self.fence, "stop")
            children.stop(self.fence, 2.0)
        if self.token and not stop.lease_lost and stop.code != EXIT_LEASE_HELD:
            self._release()
        if self.token:
            body = {"code": stop.code, "reason": stop.reason}
            body["genome"] = self.served.commit if self.served else ""
            try:
                self.record.append(kinds.NODE_STOPPED, node_key(self.holder), body)
            except RecordError as error:
                self._warn(f"node.stopped not written: {error}")
            if not stop.lease_lost:  # a body past its lease sends nothing: this clone's
                self._sync()  # status shows the stop; the remote hears it, void, later
        self.say(f"stopped: {stop.reason} (exit {stop.code})")
        return stop.code

    def _release(self) -> None:
        try:
            if not self.lease.release():
                self._warn("the body lease was no longer ours to give back")
        except LeaseUnprovable as error:
            self._warn(f"the body lease was not given back: {error}")
