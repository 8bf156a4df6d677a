"""The chaos run: the spine under SIGKILLs, checked as a history (Jepsen-style).

Setup: a bare remote holding the genome `hale dna new` writes and its
record, one throwaway PostgreSQL (memory and nerves), and three bodies of
one shared record: `hale dna run` in three clones with HALE_DNA_OWNER a, b
and c, each restarted whenever it exits, as a unit would. Three asker
clones (owners a, b, c) append asks, planned and `--judgment`, now and then
through the real `hale dna task create`; a leg at each node's head claims,
asks its allowance and settles the judgments; a hostile clone pushes rows
hale would never write (past the door, as raw lines), and the heads are
sent malformed outcomes, which they must refuse.

Faults, at a steady pace until each kind is spent: SIGKILL of a random
host, organization or fence process; pauses (SIGSTOP of one or more of a
body's host, fence and organization, SIGCONT once the lease has run out:
the paused body must wake to write nothing); partitions (the bare remote
renamed away and back, for up to one and a half leases). With `--bodies 2`
or 3, each owner has that many bodies in clones of their own, standing by:
one holds the owner's lease, the others take it over when it runs out.
With `--model-delay S` the Leader's and the editor's calls go to a model
server here (OpenAI-shaped, answering as the offline provider does) that
waits up to S seconds before it answers, so pauses land mid-call; it counts
the Leader's calls per ask, so the report shows the calls lost with a lease
and asked again (no violation) beside the calls that landed (one an ask).
`--lease S` sets the bodies' lease (renewal, margin and claims follow it),
and pauses and partitions last in leases: a short lease makes takeovers
come sooner, so 100 of each fault fit in well under an hour; `--pace`
is the mean time between faults, which overlap across bodies (a pause
outlives the next kill). An exit while a partition was on is the
partition's doing, however late the driver noticed it. Then the organism drains (no more
faults, asks or bad rows; legs go on) until nothing is owed, each node must
stay up on its own (a node that exits by itself now is crash-looping), the
nodes stop, and the checker (chaos_check.py) reads the final record from a
fresh clone. Prints kills, rows, asks and violations; exit 1 on any
violation.

    .venv/bin/python bench/chaos.py [--kills 100] [--pauses 100] [--partitions 100]
                                    [--bodies 2] [--model-delay 2] [--lease 10] [--pace 1.5]
                                    [--seed N] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "node")]
from chaos_check import History, check, pending  # noqa: E402
from hostile import line, row_id  # noqa: E402
from node_helpers import children_of, clone, hale, make_dna_forge  # noqa: E402
from pg import start_postgres  # noqa: E402

from hale_runtime.head.client import HeadClient, HeadError, Leg, find_head  # noqa: E402
from hale_runtime.record import Record, RecordError, store  # noqa: E402

HALE = str(Path(sys.executable).parent / "hale")
OWNERS = ("a", "b", "c")
TIMINGS = {  # a loaded two-core machine: leases long enough that only kills stop nodes
    "HALE_DNA_TICK": "0.3",
    "HALE_DNA_LEASE_S": "10",
    "HALE_DNA_LEASE_RENEW_S": "2",
    "HALE_DNA_LEASE_MARGIN_S": "3",
    "HALE_DNA_GENOME_POLL": "0",
    "HALE_DNA_GIT_TIMEOUT": "5",
    "HALE_DNA_STOP_GRACE": "2",
    "HALE_DNA_CLAIM_TTL": "20",
    "HALE_DNA_LEG_LEASE_S": "15",
    "HALE_DNA_DURABILITY": "relaxed",
}


def timings(lease_s: float) -> dict[str, str]:
    """TIMINGS for a lease of `lease_s` seconds: renewals, margin and claims in step
    with it (a shorter lease makes takeovers come sooner, so a run fits its hour)."""
    scaled = {"HALE_DNA_LEASE_S": lease_s, "HALE_DNA_LEASE_RENEW_S": lease_s / 5,
              "HALE_DNA_LEASE_MARGIN_S": lease_s * 0.3, "HALE_DNA_CLAIM_TTL": lease_s * 2,
              "HALE_DNA_LEG_LEASE_S": lease_s * 1.5}  # fmt: skip
    return {**TIMINGS, **{k: f"{v:g}" for k, v in scaled.items()}}


RESTART_S = 0.5  # a unit's RestartSec
HELD_RESTART_S = 3.0  # a standby told the lease is another's tries again this much later
LEASE_S = float(TIMINGS["HALE_DNA_LEASE_S"])
STABLE_S = 8.0  # after the faults, a node up this long on its own is not crash-looping
PROVOKED_S = 20.0  # an exit this soon after a kill of one of its processes is the kill's
SHAPE = re.compile(r"(?<=\bi-)[0-9a-f]+|(?<=\bt)\d+|(?<=\bnode )\w+")  # a violation's shape
LEASE_STOPS = ("the body lease was not renewed", "the body lease is now")  # the spine's stops


class SlowModel:
    """A chat-completions endpoint on loopback answering as the offline provider
    does, after a random wait of up to `delay_s` (a model that takes its time)."""

    def __init__(self, delay_s: float, seed: int):
        from hale_runtime.performers.models import OfflineProvider

        rng, offline = random.Random(seed), OfflineProvider()
        self.asked: Counter = Counter()  # the Leader's calls answered, by ask
        asked = self.asked

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                if prompt.startswith("You are the Leader"):
                    asked[next((w for w in prompt.splitlines() if w.startswith("Ask: ")), "")] += 1
                time.sleep(rng.uniform(0, delay_s))
                answer = {"choices": [{"message": {"content": offline.complete(prompt)[0]}}]}
                data = json.dumps(answer).encode()
                with contextlib.suppress(OSError):  # the caller was killed meanwhile
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.env = {
            "HALE_DNA_MODEL_URL": f"http://127.0.0.1:{self.server.server_address[1]}/v1",
            "HALE_DNA_MODEL_CALL_MICROS": "1000",
            "HALE_DNA_MODEL_TIMEOUT": "30",
        }

    def stop(self) -> None:
        self.server.shutdown()


@dataclass
class Figures:
    kills: Counter = field(default_factory=Counter)
    restarts: int = 0
    asks: int = 0
    cli_asks: int = 0
    legs_settled: int = 0
    bad_pushed: int = 0
    forged_pushed: int = 0  # the stranger's well-formed rows (forged_line)
    head_refused: int = 0
    lease_stops: int = 0  # a node that could not prove its lease in time stopped, as it must
    pauses: int = 0
    partitions: int = 0
    held_exits: int = 0  # a standby body told the lease is another's (exit 3), as it must be
    seconds: float = 0.0
    bodies: int = 3
    leader_calls: int = 0  # the Leader's calls the model server answered
    asked_again: int = 0  # asks the Leader was called on more than once (a call lost, asked again)


class Body:
    """One owner's node in its clone, started again whenever it exits."""

    def __init__(self, root: Path, owner: str, dsn: str, name: str = "", extra=None):
        self.root, self.owner, self.name = root, owner, name or owner
        self.env = {**os.environ, **TIMINGS, **(extra or {}), "HALE_DNA_MEMORY": dsn,
                    "HALE_DNA_OWNER": owner}  # fmt: skip
        self.log = root.parent / f"node-{self.name}.log"
        self.proc: subprocess.Popen | None = None
        self.started = self.exited_at = self.killed_at = 0.0
        self.seen: set[int] = set()  # every pid of ours, to be sure none outlives the run
        self.exits: list[tuple[int, bool, str]] = []  # (exit code, caused by a kill, why)
        self.cuts: list[list[float]] = []  # the run's partitions, [cut at, healed at] (shared)

    def start(self) -> None:
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen([HALE, "dna", "run"], cwd=self.root, stdout=log,
                                         stderr=subprocess.STDOUT, env=self.env)  # fmt: skip
        self.started = time.monotonic()

    def supervise(self) -> bool:
        """Restart the node once it has been down RESTART_S; whether it started again."""
        if self.proc is None or self.proc.poll() is None:
            return False
        if not self.exited_at:
            self.exited_at = time.monotonic()
            provoked = self.exited_at - self.killed_at < PROVOKED_S or self._cut_meanwhile()
            self.exits.append((self.proc.returncode, provoked, self._said_why()))
        held = self.proc.returncode == 3  # a standby: the lease is live elsewhere
        if time.monotonic() - self.exited_at < (HELD_RESTART_S if held else RESTART_S):
            return False
        self.exited_at = 0.0
        self.start()
        return True

    def _cut_meanwhile(self) -> bool:
        """Whether a partition overlapped this run of the node (up to PROVOKED_S
        after it healed): its exit is the partition's doing, however late the
        driver's loop noticed it."""
        return any(cut < self.exited_at and healed + PROVOKED_S > self.started
                   for cut, healed in self.cuts)  # fmt: skip

    def _said_why(self) -> str:
        """The host's last `stopped: <why> (exit N)` line."""
        lines = [x for x in self.log.read_text().splitlines() if x.startswith("stopped: ")]
        return lines[-1].removeprefix("stopped: ") if lines else "no word"

    def targets(self) -> dict[str, int]:
        """host, fence and organization pids, when all three run."""
        if self.proc is None or self.proc.poll() is not None:
            return {}
        found = {"host": self.proc.pid, **children_of(self.proc.pid)}
        self.seen.update(found.values())
        return found if len(found) == 3 else {}

    def up_for(self) -> float:
        alive = self.proc is not None and self.proc.poll() is None
        return time.monotonic() - self.started if alive else 0.0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        for pid in self.seen:  # a fence or organization orphaned by a killed host
            if _ours(pid, self.root):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


def _ours(pid: int, root: Path) -> bool:
    """Whether `pid` is still a process of this clone's node (not a pid reused since)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return "hale" in cmd and (str(root) in cmd or cwd == str(root))


class Askers:
    """Three clones asking, each as one owner's asker; a CLI ask now and then."""

    def __init__(self, forge: Path, tmp: Path, dsn: str, rng: random.Random):
        self.rng, self.dsn = rng, dsn
        self.records = {o: Record.open(clone(forge, tmp / f"asker-{o}")) for o in OWNERS}
        self.verbs: list[subprocess.Popen] = []
        self.asked = 0

    def ask(self, figures: Figures) -> None:
        owner = self.rng.choice(OWNERS)
        record = self.records[owner]
        judgment = self.rng.random() < 0.4
        self.asked += 1
        if self.asked % 10 == 0:
            self._ask_by_verb(record, owner, judgment)
            figures.cli_asks += 1
        else:
            body = {"objective": f"chaos ask {self.asked}", "target": ".", "by": record.who,
                    "owner": owner, **({"judgment": True} if judgment else {})}  # fmt: skip
            record.append("intent.requested", f"i-{self.rng.getrandbits(48):012x}", body)
        figures.asks += 1

    def _ask_by_verb(self, record: Record, owner: str, judgment: bool) -> None:
        env = {**os.environ, **TIMINGS, "HALE_DNA_OWNER": owner, "HALE_DNA_MEMORY": self.dsn,
               "HALE_DNA_ANSWER_WAIT": "3"}  # fmt: skip
        argv = [HALE, "dna", "task", "create", f"chaos verb ask {self.asked}"]
        self.verbs.append(subprocess.Popen(
            argv + (["--judgment"] if judgment else []), cwd=record.repo.workdir, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))  # fmt: skip

    def sync(self) -> None:
        for record in self.records.values():
            with contextlib.suppress(RecordError):  # the rows stay; the next sync sends them
                record.sync()

    def verb_failures(self) -> list[str]:
        """Verbs that failed as no verb may: a traceback, or an exit code beyond 0 and 1."""
        bad = []
        for proc in self.verbs:
            out, err = proc.communicate(timeout=120)
            if proc.returncode not in (0, 1) or "Traceback" in err:
                bad.append(f"task create exited {proc.returncode}: {err.strip()[-300:]}")
        return bad


def bad_line(rng: random.Random, n: int) -> str:
    """A row hale would never write: one that fits no kind, or one whose application raises."""
    nonce = f"{n}-{rng.getrandbits(32):08x}"
    return rng.choice([
        line("attempt.outcome.requested", "t1/wf1/s0/j/a0", {"leg": "mallory", "token": 1,
             "outcome": "succeeded", "note": nonce, "calls": [{"micros": "lots"}]}),
        line("schedule.requested", f"sr-{nonce}\nsecond line", {"by": "mallory"}),
        line("intent.requested", f"i-bad-{nonce}", {"objective": 42, "target": ".", "by": "m"}),
        line("workflow.admitted", f"t9{n}9", {"ask": nonce, "plan": "garbage"}),
        line("step.registered", f"t7{n}7/wf1/s0", {"store": "record", "members": ["a"]}),
        f"not a row {{ {nonce}",
    ])  # fmt: skip


def forged_line(rng: random.Random, n: int) -> tuple[str, str]:
    """A stranger's row that fits its kind but is hers to write by no rule: an
    acting row of every writer class, unsigned (her key is bound to nothing).
    With the nonce any effect of it would carry (a schedule's asks, a note, a
    reason): applied, it would show in a row that is not poison."""
    nonce = f"forged{n}x{rng.getrandbits(32):08x}"
    every = {"id": nonce, "every_ms": 5000, "definition": "ask-edit", "convener": "leader"}
    return rng.choice([
        line("schedule.declared", nonce, every),
        line("practice.ratified", f"practice/{nonce}", {"receipt": "0" * 64, "by": nonce}),
        line("model.called", f"spend/{nonce}", {"micros": 25_000_000, "call": nonce}),
        line("attempt.outcome", "t1/wf1/s0/j/a0", {"outcome": "failed", "detail": nonce}),
        line("restart.requested", f"restart/{nonce}", {}),
        line("node.stopped", "node/a@chaos", {"code": 0, "reason": nonce}),
        line("row.quarantined", "0" * 64, {"kind": "intent.requested", "why": nonce}),
        line("position.filled", "leader", {"holder": nonce, "owner": "a"}),
    ]), nonce  # fmt: skip


class Hostile:
    """A clone pushing raw lines on the remote's tip, as any git user can."""

    def __init__(self, forge: Path, tmp: Path):
        self.root = clone(forge, tmp / "mallory")
        self.repo = Record.open(self.root).repo
        self.ids: set[str] = set()
        self.nonces: set[str] = set()  # of the forged rows that landed (forged_line)

    def push(self, text: str) -> bool:
        tracking = "refs/dna/remotes/origin/record"
        for _ in range(20):
            fetched = self._git("fetch", "-q", "origin", f"+{store.RECORD_REF}:{tracking}")
            tip = store.read_ref(self.repo, tracking) if fetched else None
            oid = store.write_commit(self.repo, tip, text + "\n", "mallory", 1_767_225_600_000)
            if self._git("push", "-q", "origin", f"{oid}:{store.RECORD_REF}"):
                self.ids.add(row_id(text))
                return True
        return False

    def _git(self, *args: str) -> bool:
        done = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, timeout=30)
        return done.returncode == 0


def leg_round(body: Body, figures: Figures) -> None:
    """The leg at this node's head: claim, ask the allowance, settle succeeded."""
    try:
        client = HeadClient(*find_head(body.root), timeout=10)
    except HeadError:
        return
    try:
        leg = Leg(body.root, f"leg:{body.owner}", client)
        if leg.next() is None:
            return
        leg.allowance(wait=1.0)
        leg.submit("succeeded", "the chaos leg")
        figures.legs_settled += 1
    except HeadError:
        return  # the head is down or the lease went: the next round goes on
    finally:
        client.close()


def malformed_at_head(body: Body, figures: Figures) -> str:
    """A malformed outcome sent to the head: refused, else a violation."""
    try:
        client = HeadClient(*find_head(body.root), timeout=10)
    except HeadError:
        return ""
    try:
        client.call("dna.attempt.outcome", leg="leg:mallory", attempt="t1/wf1/s0/j/a0",
                    token="one", outcome="succeeded", note="", calls=[{"micros": "lots"}])  # fmt: skip
    except HeadError as error:
        if "did not answer" in str(error):
            return ""
        figures.head_refused += 1
        return ""
    finally:
        client.close()
    return f"the head of {body.owner} took a malformed outcome"


class Legs:
    """A leg at every node's head, on a thread of its own (an allowance waits)."""

    def __init__(self, bodies: list[Body], figures: Figures):
        self.bodies, self.figures = bodies, figures
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="legs", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            for body in self.bodies:
                leg_round(body, self.figures)
            self.stopping.wait(0.3)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(60)


@dataclass
class Chaos:
    """One run's parts."""

    tmp: Path
    forge: Path
    bodies: list[Body]
    askers: Askers
    hostile: Hostile
    rng: random.Random
    figures: Figures = field(default_factory=Figures)
    findings: list[str] = field(default_factory=list)
    paused: list[tuple[float, list[int], Body]] = field(default_factory=list)  # (wake at, ...)
    healed_at: float = 0.0  # when the remote cut away comes back (0: not cut)
    lease_s: float = LEASE_S
    cuts: list[list[float]] = field(default_factory=list)  # [cut at, healed at] (inf: cut)

    def __post_init__(self) -> None:
        for body in self.bodies:
            body.cuts = self.cuts

    def pause_one(self) -> bool:
        """SIGSTOP some of a running body's processes past its lease (woken by `wake`)."""
        taken = {pid for _, pids, _ in self.paused for pid in pids}
        running = [
            (b, t) for b in self.bodies if (t := b.targets()) and not taken & set(t.values())
        ]
        if not running:
            return False
        body, targets = self.rng.choice(running)
        which = self.rng.sample(sorted(targets), self.rng.randint(1, 3))
        pids = [targets[w] for w in which]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        self.paused.append(
            (time.monotonic() + self.lease_s * self.rng.uniform(1.1, 1.8), pids, body)
        )
        self.figures.pauses += 1
        return True

    def wake(self, every: bool = False) -> None:
        """SIGCONT what was paused long enough (everything, when `every`)."""
        now, still = time.monotonic(), []
        for at, pids, body in self.paused:
            if every or at <= now:
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGCONT)
                body.killed_at = now  # what it does on waking is the pause's doing
            else:
                still.append((at, pids, body))
        self.paused = still

    def partition(self) -> bool:
        """Cut the remote away (renamed), to come back within 1.5 leases (`heal`)."""
        if self.healed_at:
            return False
        self.forge.rename(self.forge.with_name("forge.cut"))
        self._provoked()
        self.cuts.append([time.monotonic(), float("inf")])
        self.healed_at = time.monotonic() + self.lease_s * self.rng.uniform(0.1, 1.5)
        self.figures.partitions += 1
        return True

    def heal(self, every: bool = False) -> None:
        if self.healed_at and (every or time.monotonic() >= self.healed_at):
            self.forge.with_name("forge.cut").rename(self.forge)
            self.healed_at = 0.0
            self.cuts[-1][1] = time.monotonic()
            self._provoked()

    def _provoked(self) -> None:
        """A node's exit soon after a partition is the partition's doing."""
        for body in self.bodies:
            body.killed_at = time.monotonic()

    def supervise(self) -> None:
        for body in self.bodies:
            if body.supervise():
                self.figures.restarts += 1

    def kill_one(self) -> bool:
        """SIGKILL one random host, organization or fence of a node that runs all three."""
        running = [(b, t) for b in self.bodies if (t := b.targets())]
        if not running:
            return False
        body, targets = self.rng.choice(running)
        which = self.rng.choice(("host", "organization", "fence"))
        with contextlib.suppress(ProcessLookupError):
            os.kill(targets[which], signal.SIGKILL)
            self.figures.kills[which] += 1
            body.killed_at = time.monotonic()
        return True

    def faults(
        self, kills: int, pace_s: float, ask_chance: float, pauses: int = 0, partitions: int = 0
    ) -> None:
        """Asks, bad rows and faults (kills, pauses, partitions) until each is spent."""
        next_fault, bad, next_sync = time.monotonic() + pace_s, 0, 0.0
        f = self.figures
        while True:
            left = {"kill": kills - sum(f.kills.values()), "pause": pauses - f.pauses,
                    "partition": partitions - f.partitions}  # fmt: skip
            if not any(n > 0 for n in left.values()):
                break
            self.supervise()
            self.wake()
            self.heal()
            if time.monotonic() >= next_fault:
                kind = self.rng.choices(list(left), [max(n, 0) for n in left.values()])[0]
                act = {"kill": self.kill_one, "pause": self.pause_one,
                       "partition": self.partition}[kind]  # fmt: skip
                if act():
                    next_fault = time.monotonic() + pace_s * self.rng.uniform(0.5, 1.5)
            if self.rng.random() < ask_chance:
                self.askers.ask(self.figures)
            if time.monotonic() >= next_sync:  # once a second, not every turn: the loop stays quick
                self.askers.sync()
                next_sync = time.monotonic() + 1.0
            if self.rng.random() < 0.12:
                bad += 1
                self.figures.bad_pushed += self.hostile.push(bad_line(self.rng, bad))
            if self.rng.random() < 0.12:  # the stranger: well-formed rows she may not write
                bad += 1
                forged, nonce = forged_line(self.rng, bad)
                if self.hostile.push(forged):
                    self.figures.forged_pushed += 1
                    self.hostile.nonces.add(nonce)
            if self.rng.random() < 0.08:
                said = malformed_at_head(self.rng.choice(self.bodies), self.figures)
                self.findings += [said] if said else []
            time.sleep(0.2)

    def drain(self, timeout_s: float) -> list[str]:
        """No more faults: wait until the organism owes nothing; what it still owes."""
        self.wake(every=True)
        self.heal(every=True)
        deadline, owed = time.monotonic() + timeout_s, ["not looked yet"]
        while owed and time.monotonic() < deadline:
            self.supervise()
            self.askers.sync()
            record = self.askers.records[OWNERS[0]]
            rows = list(record.scan(0, poison=True))
            owed = pending(rows, {r.id for r, _ in record.poison_rows()})
            time.sleep(1.0)
        return owed

    def steady(self, timeout_s: float) -> list[str]:
        """Each node must now stay up STABLE_S on its own; the ones that do not."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self._unsteady():
            self.supervise()
            time.sleep(0.5)
        for body in self.bodies:  # no kill caused these: the node stopped on its own
            for code, provoked, why in body.exits:
                if provoked:
                    continue
                if code == 3:  # a standby, or a body woken past its lease: as it must
                    self.figures.held_exits += 1
                    continue
                if why.startswith(LEASE_STOPS):  # the spine's own reason, under load
                    self.figures.lease_stops += 1
                    continue
                self.findings.append(f"node {body.owner} exited by itself ({code}): {why}")
        return self._unsteady()

    def _unsteady(self) -> list[str]:
        """The owners none of whose bodies has stayed up STABLE_S."""
        up = {b.owner for b in self.bodies if b.up_for() >= STABLE_S}
        return [o for o in dict.fromkeys(b.owner for b in self.bodies) if o not in up]


def start(tmp: Path, dsn: str, seed: int, per_owner: int = 1, extra=None,
          lease_s: float = LEASE_S) -> Chaos:  # fmt: skip
    """The forge, memory migrated, `per_owner` bodies of each owner (one running,
    the others standing by), askers and the hostile clone."""
    forge, src = make_dna_forge(tmp)
    migrated = hale(src, "dna", "memory", "migrate", env={"HALE_DNA_MEMORY": dsn})
    assert migrated.returncode == 0, migrated.stderr
    names = [(o, o if n == 0 else f"{o}{n + 1}") for o in OWNERS for n in range(per_owner)]
    extra = {**timings(lease_s), **(extra or {})}
    bodies = [Body(clone(forge, tmp / f"node-{name}"), o, dsn, name, extra) for o, name in names]
    for body in bodies[::per_owner]:
        body.start()
    deadline = time.monotonic() + 180
    while not all("running;" in b.log.read_text() for b in bodies[::per_owner]):
        if time.monotonic() > deadline or any(
            b.proc.poll() is not None for b in bodies[::per_owner]
        ):
            raise RuntimeError("a node did not start:\n" + "\n".join(b.log.read_text()[-2000:]
                                                                     for b in bodies))  # fmt: skip
        time.sleep(0.2)
    for body in bodies:  # the standbys: told the lease is another's, they try again later
        if body.proc is None:
            body.start()
    rng = random.Random(seed)
    return Chaos(tmp, forge, bodies, Askers(forge, tmp, dsn, rng), Hostile(forge, tmp), rng,
                 lease_s=lease_s)  # fmt: skip


def final(chaos: Chaos, looping: list[str]) -> History:
    """The history as a fresh clone of the remote receives it."""
    record = Record.open(clone(chaos.forge, chaos.tmp / "fresh"))
    record.sync()
    rows = list(record.scan(0, poison=True))
    poison = {r.id for r, _ in record.poison_rows()}
    return check(rows, poison, chaos.hostile.ids, looping, chaos.hostile.nonces)


def run(kills: int, seed: int, tmp: Path, pace_s: float = 1.5, ask_chance: float = 0.5,
        drain_s: float = 240.0, pauses: int = 0, partitions: int = 0,
        per_owner: int = 1, model_delay_s: float = 0.0,
        lease_s: float = LEASE_S) -> tuple[History, Figures]:  # fmt: skip
    """One chaos run in `tmp`: its history (violations included) and its figures."""
    began = time.monotonic()
    pg = start_postgres()
    chaos: Chaos | None = None
    model = SlowModel(model_delay_s, seed) if model_delay_s > 0 else None
    try:
        chaos = start(tmp, pg.dsn, seed, per_owner, model.env if model else None, lease_s)
        legs = Legs(chaos.bodies, chaos.figures)
        chaos.faults(kills, pace_s, ask_chance, pauses, partitions)
        owed = chaos.drain(drain_s)
        looping = chaos.steady(90.0)
        legs.stop()
        for body in chaos.bodies:
            body.stop()
        history = final(chaos, looping)
        if model is not None:
            chaos.figures.leader_calls = sum(model.asked.values())
            chaos.figures.asked_again = sum(1 for n in model.asked.values() if n > 1)
        history.violations += chaos.findings + chaos.askers.verb_failures()
        history.violations += [f"still owed after the drain: {what}" for what in owed[:20]]
    finally:
        if chaos is not None:
            chaos.wake(every=True)
            chaos.heal(every=True)
        for body in chaos.bodies if chaos else []:
            body.stop()
        pg.stop()
        if model is not None:
            model.stop()
    chaos.figures.seconds = time.monotonic() - began
    chaos.figures.bodies = len(chaos.bodies)
    return history, chaos.figures


def report(history: History, figures: Figures, seed: int) -> list[str]:
    kills = ", ".join(f"{k} {figures.kills[k]}" for k in ("host", "organization", "fence"))
    lines = [
        f"chaos: {figures.bodies} bodies (owners a, b, c), one bare remote, one PostgreSQL; "
        f"seed {seed}; {figures.seconds:.0f}s",
        f"  kills: {sum(figures.kills.values())} ({kills}); pauses: {figures.pauses}; "
        f"partitions: {figures.partitions}; restarts: {figures.restarts}",
        f"  stops for a lease not proven in time: {figures.lease_stops}; exits 3 (lease held "
        f"elsewhere, or woken past it): {figures.held_exits}; stale rows: {history.stale}; "
        f"leases taken (body.epoch rows): {history.epochs}",
        f"  asks: {history.asks} ({figures.cli_asks} through `hale dna task create`)",
        f"  rows: {history.rows} in the final record; tasks {history.tasks}, "
        f"attempts {history.attempts}; legs settled {figures.legs_settled}",
        f"  bad rows: {figures.bad_pushed} pushed, {history.bad_rows} landed, "
        f"{history.quarantined} row.quarantined; malformed outcomes the heads refused: "
        f"{figures.head_refused}",
        f"  a stranger's forged rows: {figures.forged_pushed} pushed (schedules, practices, "
        f"spend, outcomes, restarts, node states, verdicts, positions); applied: none unless "
        f"a violation below says so",
        f"  the Leader's calls the model server answered: {figures.leader_calls}; asks called "
        f"on again after a call lost with its lease: {figures.asked_again}; calls journaled as "
        f"landed: {history.leader_landed}, void (a superseded epoch's): {history.leader_void}",
        f"  violations: {len(history.violations)}",
    ]
    shapes = Counter(SHAPE.sub("…", v)[:90] for v in history.violations)
    lines += [f"    {n} × {shape}" for shape, n in shapes.most_common()]
    return lines + [f"    {v}" for v in history.violations[:50]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--pauses", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--bodies", type=int, default=2, choices=(1, 2, 3), help="per owner")
    parser.add_argument("--pace", type=float, default=1.5, help="seconds between faults")
    parser.add_argument("--lease", type=float, default=LEASE_S,
                        help="the bodies' lease, s (renewal, margin and claims follow it)")  # fmt: skip
    parser.add_argument("--model-delay", type=float, default=2.0,
                        help="the model server's longest wait, s (0: the offline provider)")  # fmt: skip
    parser.add_argument("--drain", type=float, default=240.0,
                        help="seconds the organism has, after the faults, to owe nothing")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the folder (logs, clones)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hale-chaos-"))
    try:
        history, figures = run(args.kills, args.seed, tmp, args.pace, drain_s=args.drain,
                               pauses=args.pauses,
                               partitions=args.partitions, per_owner=args.bodies,
                               model_delay_s=args.model_delay, lease_s=args.lease)  # fmt: skip
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(report(history, figures, args.seed)))
    if args.keep:
        print(f"  kept: {tmp}")
    return 1 if history.violations else 0


if __name__ == "__main__":
    sys.exit(main())
