"""Who a leg is: a credential the head hands it once, not a name it says.

A leg registers a name (`dna.leg.register`) and is answered a credential:
256 random bits, told to that caller only. The head keeps the credential's
SHA-256 beside the name (in `<git dir>/hale/legs.keys`, mode 0600, when it
serves a project), so the credential itself is nowhere but with the leg.
Every lease call then carries it (the `Hale-Leg` header) and the head takes
the leg's name from it: a `leg` the call names must be that name. A name is
registered once; a second registration of it is refused (whoever holds the
first credential is that leg), so a leg that lost its credential takes a
new name.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
from pathlib import Path

from hale_runtime.head.private import write_private
from hale_runtime.record.kinds import ID

KEYS_FILE = "legs.keys"
HEADER = "Hale-Leg"


def digest(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()


class LegKeys:
    """The registered legs: name -> digest of its credential, kept in `file` when given."""

    def __init__(self, file: Path | None = None):
        self.file, self.lock = file, threading.Lock()
        self.names: dict[str, str] = {}
        if file is not None:
            try:
                self.names = {str(k): str(v) for k, v in json.loads(file.read_text()).items()}
            except (OSError, ValueError, AttributeError):
                self.names = {}
        self.by_digest = {d: name for name, d in self.names.items()}

    def register(self, leg: str) -> str:
        """A fresh credential for `leg`; ValueError (said) when the name is not a
        name or is registered already."""
        why = ID(leg) if isinstance(leg, str) and leg else " is missing"
        if why:
            raise ValueError(f"refused: a leg registers a name (leg{why}); nothing kept")
        credential = secrets.token_hex(32)
        with self.lock:
            if leg in self.names:
                raise ValueError(
                    f"refused: {leg} is registered already and proves itself with its own "
                    "credential; a leg that lost its credential registers another name"
                )
            self.names[leg] = self.by_digest_add(credential, leg)
            if self.file is not None:
                write_private(self.file, json.dumps(self.names))
        return credential

    def by_digest_add(self, credential: str, leg: str) -> str:
        d = digest(credential)
        self.by_digest[d] = leg
        return d

    def who(self, credential: str) -> str | None:
        """The leg this credential proves (None: no leg's)."""
        if not credential:
            return None
        d = digest(credential)
        leg = self.by_digest.get(d)
        if leg is None or not hmac.compare_digest(self.names.get(leg, ""), d):
            return None
        return leg
