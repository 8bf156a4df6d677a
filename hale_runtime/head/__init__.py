"""The head: the API legs call on loopback, under their lease.

    server = HeadServer(open_head_for(root, memory_dsn, who), root=root); server.start()
    leg = Leg(root, "leg:ann", HeadClient(server.url), provider)
    leg.next(); leg.allowance(); leg.call("…"); leg.submit("succeeded")

core.py decides each call (reads.py the reads), server.py serves and
batches them, client.py is the leg's side. The organization's answers to
the legs (asks/settle.py) and the performer that hands the agent kind to
legs (asks/leg_performer.py) run on the organization, below the head.
"""

from hale_runtime.head.client import HeadClient, HeadError, Leg, find_head, leg_name
from hale_runtime.head.core import Decision, Head, HeadRefused
from hale_runtime.head.server import HeadServer, head_file, open_head_for

__all__ = [
    "Decision",
    "Head",
    "HeadClient",
    "HeadError",
    "HeadRefused",
    "HeadServer",
    "Leg",
    "find_head",
    "head_file",
    "leg_name",
    "open_head_for",
]
