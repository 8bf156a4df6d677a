"""What each node runs, read from the record, memory and the lease alone.

Nodes are the holders that wrote `node.started` rows (key `node/<holder>`).
For each: the genome of its latest start, its owner's lease, whether it has stopped since (the
latest `node.stopped` after it, with its reason and code), a genome that
failed to build after it started, its last tick (memory's `node:<holder>`
graph node, which the host rewrites every tick) and the memory and nerves it
named. A build failure is shown with the start it happened in (the host
writes it just before that start's `node.started`), so a later start that
built drops it. Last, how many rows the organization quarantined
(quarantine.py's fold), and the budget window running now when it is
spent (board.py: the Board is told; the line goes when the next window
starts). Then this clone's git store: its size on disk (`git count-objects`)
and when the node's maintenance last packed it (maintenance.py). The lease is read at the remote when one answers within the git
timeout, else as this clone last saw it. Nothing here needs a node running,
and nothing writes: the embedded memory file is read only when it exists.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hale_runtime.memory import MemoryFailed, memory_dsn, open_memory
from hale_runtime.memory.dsn import is_postgres, sqlite_path
from hale_runtime.node.board import budget_line, exhausted_now
from hale_runtime.node.lease import OWNER_ENV, BodyLease, Lease, LeaseUnprovable, now_ms
from hale_runtime.node.maintenance import StoreSize, last_run, store_size
from hale_runtime.node.quarantine import quarantined
from hale_runtime.record import Record, kinds

NODE_KINDS = (kinds.NODE_STARTED, kinds.NODE_STOPPED, kinds.NODE_BUILD_FAILED)
SILENT_S = 10  # a running node that has not ticked for this long is said to be likely gone


@dataclass
class NodeStatus:
    holder: str
    genome: str = ""
    work_tree: bool = False
    started: int = 0
    stopped: dict[str, Any] | None = None
    build_failed: dict[str, Any] | None = None
    last_tick: int | None = None
    memory: str = ""
    nerves: str = ""
    token: int = 0
    owner: str | None = None
    lease: Lease | None = None  # the lease of this node's owner


@dataclass
class Status:
    lease: Lease | None
    lease_seen_at: str  # "remote <name>", "this clone", or "this clone (remote not reached)"
    nodes: list[NodeStatus] = field(default_factory=list)
    store: StoreSize | None = None  # this clone's git store (None when git could not say)
    packed: dict[str, Any] | None = None  # the last maintenance (maintenance.json)
    quarantined: int = 0  # rows the organization answered with `row.quarantined`
    budget_exhausted: dict[str, Any] | None = None  # the window running now, when spent (board.py)

    def as_json(self) -> dict[str, Any]:
        lease = asdict(self.lease) if self.lease else None
        if lease is not None:
            lease["live"] = self.lease.live()
        return {
            "lease": lease,
            "lease_from": self.lease_seen_at,
            "nodes": [asdict(n) for n in self.nodes],
            "store": asdict(self.store) if self.store else None,
            "last_packed": self.packed,
            "quarantined": self.quarantined,
            "budget_exhausted": self.budget_exhausted,
        }


def read_lease(
    root: Path, record: Record, timeout_s: float, owner: str | None = None
) -> tuple[Lease | None, str]:
    """The lease where it lives when that answers, else this clone's mirror."""
    remote = record.remote()
    lease = BodyLease(root, "", remote, 1.0, timeout_s, owner)
    try:
        _, found = lease.read()
        return found, f"remote {remote}" if remote else "this clone"
    except LeaseUnprovable:
        try:
            return lease.local(), "this clone (remote not reached)"
        except LeaseUnprovable as error:
            return None, f"unreadable: {error}"


def node_statuses(record: Record) -> dict[str, NodeStatus]:
    nodes: dict[str, NodeStatus] = {}
    failing: dict[str, dict[str, Any]] = {}  # holder -> a failure not yet followed by a start
    for row in record.rows(kind=NODE_KINDS, key_prefix="node/"):
        holder = row.key.removeprefix("node/")
        node = nodes.setdefault(holder, NodeStatus(holder))
        if row.kind == kinds.NODE_STARTED:
            node.genome, node.started = row.body.get("genome", ""), row.at
            node.work_tree = bool(row.body.get("work_tree"))
            node.memory, node.nerves = row.body.get("memory", ""), row.body.get("nerves", "")
            node.token, node.stopped = row.body.get("token", 0), None
            node.owner = row.body.get("owner") or None
            node.build_failed = failing.pop(holder, None)  # this start's, or none: it built
        elif row.kind == kinds.NODE_STOPPED:
            node.stopped = {"at": row.at, **row.body}
        else:
            failing[holder] = node.build_failed = {"at": row.at, **row.body}
    return nodes


def _ticks(root: Path) -> dict[str, int]:
    """holder -> last tick (ms), from memory; empty when memory cannot be read."""
    dsn = memory_dsn(root)
    if not is_postgres(dsn) and not sqlite_path(dsn).exists():
        return {}
    try:
        with open_memory(dsn) as memory:
            if memory.schema_version() == 0:
                return {}
            found = memory.nodes(kind="node")
    except MemoryFailed:
        return {}
    return {n.id.removeprefix("node:"): int(n.props.get("last_tick", 0)) for n in found}


def gather(root: Path, timeout_s: float = 3.0) -> Status:
    record = Record.open(root)
    owner = os.environ.get(OWNER_ENV) or None
    leases = {owner: read_lease(root, record, timeout_s, owner)}
    nodes = node_statuses(record)
    for node in nodes.values():
        if node.owner not in leases:
            leases[node.owner] = read_lease(root, record, timeout_s, node.owner)
        node.lease = leases[node.owner][0]
    for holder, tick in _ticks(root).items():
        if holder in nodes:
            nodes[holder].last_tick = tick
    lease, where = leases[owner]
    found = Status(lease, where, sorted(nodes.values(), key=lambda n: n.holder))
    try:
        found.store = store_size(record.repo.path)
    except (OSError, subprocess.SubprocessError, ValueError):
        found.store = None
    found.packed = last_run(record.repo.path)
    found.quarantined = len(quarantined(record).answered)
    found.budget_exhausted = exhausted_now(record)
    return found


def _when(ms: int) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(ms / 1000))
    ago = max(0, now_ms() - ms) / 1000
    return f"{stamp} ({ago:.0f}s ago)"


def render(status: Status) -> list[str]:
    """The lines `hale dna status` prints."""
    lease = status.lease
    lines = [
        f"body: {lease.describe() if lease else 'nobody holds the lease'} ({status.lease_seen_at})"
    ]
    lines.append(_store_line(status))
    if not status.nodes:
        lines.append("no node has run on this record")
    for node in status.nodes:
        lines += [f"node {node.holder}", *("  " + line for line in _node_lines(node))]
    if status.quarantined:
        rows = f"{status.quarantined} row{'s' if status.quarantined != 1 else ''}"
        lines.append(
            f"quarantined: {rows} the organization could not apply"
            " (hale dna history --kind row.quarantined)"
        )
    else:
        lines.append("quarantined: none")
    if status.budget_exhausted:
        lines.append(budget_line(status.budget_exhausted))
    return lines


def _store_line(status: Status) -> str:
    """`record store: 1.2 MB on disk (3 loose objects, 1 pack); last packed <when>`."""
    when = _when(status.packed["at"]) if status.packed else "never"
    s = status.store
    if s is None:
        return f"record store: size unknown (git did not say); last packed {when}"
    mb = s.total / 1_000_000
    packs = f"{s.packs} pack" + ("" if s.packs == 1 else "s")
    return f"record store: {mb:,.1f} MB on disk ({s.loose:,} loose objects, {packs}); last packed {when}"


def _node_lines(node: NodeStatus) -> list[str]:
    label = node.genome[:7] + (" (work tree)" if node.work_tree else "")
    lines = [f"genome: {label}"]
    if node.stopped:
        lines.append(
            f"state: stopped {_when(node.stopped['at'])}: {node.stopped.get('reason')} (exit {node.stopped.get('code')})"
        )
    else:
        silent = (now_ms() - node.last_tick) / 1000 if node.last_tick else 0
        gone = f"; no tick for {silent:.0f}s, so likely gone" if silent > SILENT_S else ""
        lines.append(f"state: started {_when(node.started)}{gone}")
    if node.build_failed:
        failed = str(node.build_failed.get("genome", ""))
        # served all the same when nothing built before it: its asks are refused
        kept = "no genome builds, so asks are refused" if failed == node.genome else f"kept {label}"
        lines.append(f"build failed: {failed[:7]} at {_when(node.build_failed['at'])}; {kept}")
    holds = node.lease is not None and node.lease.holder == node.holder
    owner = f" (owner {node.owner})" if node.owner else ""
    lines.append(f"lease: {node.lease.describe() if holds else 'not held'}{owner}")
    lines.append(f"last tick: {_when(node.last_tick) if node.last_tick else 'none in memory'}")
    lines += [f"memory: {node.memory}", f"nerves: {node.nerves}"]
    return lines
