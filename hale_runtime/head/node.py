"""Starting and stopping the head beside a node's host.

The command line hands `start_head` to the node's host (which sits a layer
below the head), and the host calls it once its organization runs: the head serves on
loopback (port HALE_DNA_HEAD_PORT, any free one by default) over its own
Record and memory connection, and its address is kept for legs. A head
that cannot start is said in one line, and the node runs without one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hale_runtime.head.server import HeadServer, open_head_for

PORT_ENV, LEASE_ENV = "HALE_DNA_HEAD_PORT", "HALE_DNA_LEG_LEASE_S"


def start_head(
    root: Path, memory_dsn: str, holder: str, say: Callable[[str], None] = print
) -> HeadServer | None:
    """The head, serving; None (said) when it could not start."""
    try:
        port = int(os.environ.get(PORT_ENV) or 0)
        lease_s = float(os.environ.get(LEASE_ENV) or 0) or None
        server = HeadServer(open_head_for(root, memory_dsn, holder, lease_s), port, root)
        url = server.start()
    except (OSError, ValueError, RuntimeError) as error:
        say(f"head: not serving: {error}")
        return None
    say(f"head: serving legs at {url}")
    return server
