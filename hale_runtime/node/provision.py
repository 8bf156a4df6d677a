"""A person's provisioning of a host, recorded for body-provision to observe.

The seed's body-provision workflow starts a node on a host, takes its lease
and observes it running, but its first step is a person's: the machine has
to exist. `hale dna body provision HOST` is that person saying so: it checks
what this machine can check (the name is a host name, and it resolves from
here, so the record never names a host nobody can reach) and writes
`body.provisioned host:<HOST> {host, address, owner, by, note}`, the owner
being this shell's HALE_DNA_OWNER over a shared record. The same host
provisioned again with the same address and owner writes nothing; with
others it writes a new row, and the newest row is the host's. A node
projects each row into memory's graph as node `host:<HOST>` (kind `host`),
where body-provision's observed step will read it once the host store is
built; until then admission refuses body-provision and names this verb.
"""

from __future__ import annotations

import re
import socket
from typing import Any, NamedTuple

from hale_runtime.record import Record, Row, kinds

HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")  # fmt: skip


class Provisioned(NamedTuple):
    row: Row | None  # None: the record already said so, nothing written
    host: str
    address: str


def check_name(host: str) -> str:
    """Why `host` is no host name ("" when it is one)."""
    if HOSTNAME.fullmatch(host):
        return ""
    return f"{host!r} is not a host name (letters, digits, `-` and `.`, as DNS spells them)"


def resolve(host: str) -> str:
    """The address `host` resolves to from here; OSError when it does not."""
    found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return str(found[0][4][0])


def hosts(record: Record) -> dict[str, Row]:
    """The newest `body.provisioned` row of every host, in the order first provisioned."""
    newest: dict[str, Row] = {}
    for row in record.rows(kind=kinds.BODY_PROVISIONED):
        newest[str(row.body.get("host", ""))] = row
    return newest


def provision(record: Record, host: str, address: str, owner: str | None, note: str) -> Provisioned:
    """Write the host's row unless the record already holds the same."""
    body: dict[str, Any] = {"host": host, "address": address, "owner": owner or "",
                            "by": record.who, "note": note}  # fmt: skip
    held = hosts(record).get(host)
    if held is not None and all(held.body.get(f) == body[f] for f in ("address", "owner")):
        return Provisioned(None, host, address)
    return Provisioned(record.append(kinds.BODY_PROVISIONED, f"host:{host}", body), host, address)
