"""What ends a node: a NodeStop with its exit code, and the codes a host exits with.

Everything that ends a host (node/host.py) raises NodeStop; the stop kills
the organization (at once when the lease is lost), stops the fence and
gives the lease back when it is still ours. `node_key` is the key of a
body's own rows (`node.started`, `node.stopped`, `node.build_failed`).
"""

from __future__ import annotations

EXIT_OK, EXIT_REFUSED, EXIT_LEASE_HELD, EXIT_GENOME_MOVED = 0, 1, 3, 75


class NodeStop(Exception):
    def __init__(self, code: int, reason: str, lease_lost: bool = False):
        super().__init__(reason)
        self.code, self.reason, self.lease_lost = code, reason, lease_lost


def node_key(holder: str) -> str:
    return f"node/{holder}"
