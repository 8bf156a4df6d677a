"""A leg: the head's client, and the attempt it holds between verbs.

`HeadClient` posts calls to the head over one kept-alive connection, with
the head's token (`find_head` reads it from head.json, or
HALE_DNA_HEAD_TOKEN beside HALE_DNA_HEAD), and raises HeadError with the
head's own words when a call is refused, and with the leg's credential
(`Hale-Leg`) once it has one; its
`read_record`, `read_graph` and `work_hat` are the reads. `Leg`
is what `hale dna work` runs: it keeps the attempt it holds (lease token,
grant, the calls made) in `<git dir>/hale/legs/<leg>.json`, so `next`,
`allowance`, `call` and `submit` can be separate processes. A leg makes
register once (`dna.leg.register`) and keeps its credential in
`<git dir>/hale/legs/<leg>.key` (mode 0600), sent with every lease call. A leg makes
no model call whose known price is past what is left of its grant; a call
whose price is not known beforehand is made and reported, and the
organization settles an overrun as failed.
"""

from __future__ import annotations

import http.client
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hale_runtime.errors import HaleRuntimeError
from hale_runtime.head.identity import HEADER as LEG_HEADER
from hale_runtime.head.private import write_private
from hale_runtime.head.server import head_file

LEG_ENV, HEAD_ENV, TOKEN_ENV = "HALE_DNA_LEG", "HALE_DNA_HEAD", "HALE_DNA_HEAD_TOKEN"


class HeadError(HaleRuntimeError):
    """The head refused a call, or could not be reached."""


class HeadClient:
    def __init__(self, url: str, token: str = "", timeout: float = 150.0, credential: str = ""):
        parts = urlsplit(url)
        self.url, self.host, self.port = url, parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        self.conn: http.client.HTTPConnection | None = None
        if credential:
            self.prove(credential)

    def prove(self, credential: str) -> None:
        """Send this leg's credential with every call from now on."""
        self.headers[LEG_HEADER] = credential

    def register(self, leg: str) -> str:
        """Register `leg` with the head: its credential (sent from now on)."""
        credential = str(self.call("dna.leg.register", leg=leg)["credential"])
        self.prove(credential)
        return credential

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """The call's result; HeadError with the head's words when refused."""
        body = json.dumps({"method": method, "params": params}).encode()
        for tries_left in (1, 0):
            try:
                conn = self.conn or http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout
                )
                self.conn = conn
                conn.request("POST", "/", body, self.headers)
                response = conn.getresponse()
                doc = json.loads(response.read() or b"{}")
                break
            except (OSError, http.client.HTTPException, ValueError) as error:
                self.close()
                if not tries_left:
                    raise HeadError(f"the head at {self.url} did not answer: {error}") from None
        if "error" in doc:
            raise HeadError(str(doc["error"]))
        return dict(doc.get("result") or {})

    # ---- the reads (no lease) ------------------------------------------------------

    def read_record(
        self, since: int = 0, kind: str = "", key_prefix: str = "", limit: int = 500
    ) -> dict[str, Any]:
        """Stamped rows after `since`: `rows`, the next `cursor`, `more`, `landed`."""
        return self.call(
            "dna.record.read", since=since, kind=kind, key_prefix=key_prefix, limit=limit
        )

    def read_graph(self, node_kind: str = "", edge_kind: str = "") -> dict[str, Any]:
        """Memory's graph: `positions` (with holders), `nodes`, `edges`."""
        return self.call("dna.graph.read", node_kind=node_kind, edge_kind=edge_kind)

    def work_hat(self, id: str) -> dict[str, Any]:
        """One Work's hat, for an attempt, Work or task id."""
        return self.call("dna.work.hat", id=id)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def find_head(root: Path) -> tuple[str, str]:
    """(the head's URL, its token): HALE_DNA_HEAD and HALE_DNA_HEAD_TOKEN when
    set, else what the node serving here keeps in head.json."""
    named = os.environ.get(HEAD_ENV, "").strip()
    token = os.environ.get(TOKEN_ENV, "").strip()
    if named and token:
        return named, token
    try:
        kept = json.loads(head_file(root).read_text())
        return named or str(kept["url"]), token or str(kept.get("token", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        if named:
            return named, token
        raise HeadError(
            "no head serves this project: run a node (`hale dna dev`) or name one in HALE_DNA_HEAD"
        ) from None


def leg_name(who: str) -> str:
    """This leg's name: HALE_DNA_LEG, else `leg:<who>`."""
    return os.environ.get(LEG_ENV, "").strip() or f"leg:{who}"


class Leg:
    def __init__(self, root: Path, name: str, client: HeadClient, provider: Any = None):
        self.root, self.name, self.client, self.provider = Path(root), name, client, provider
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        self.file = head_file(self.root).parent / "legs" / f"{safe}.json"
        self.keyfile = self.file.with_suffix(".key")

    def _proven(self) -> HeadClient:
        """The client, sending this leg's credential (registered the first time)."""
        if LEG_HEADER not in self.client.headers:
            try:
                self.client.prove(self.keyfile.read_text().strip())
            except OSError:
                write_private(self.keyfile, self.client.register(self.name))
        return self.client

    def _call(self, method: str, **params: Any) -> dict[str, Any]:
        """A lease call with this leg's credential; a head that no longer knows the
        credential (its registry was lost) is asked to register the leg again, once."""
        try:
            return self._proven().call(method, **params)
        except HeadError as error:
            if not str(error).startswith("refused: a leg proves who it is"):
                raise
            write_private(self.keyfile, self.client.register(self.name))
            return self.client.call(method, **params)

    # ---- what the leg holds ---------------------------------------------------------

    def held(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.file.read_text())
        except (OSError, ValueError):
            return None

    def _keep(self, state: dict[str, Any] | None) -> None:
        if state is None:
            self.file.unlink(missing_ok=True)
            return
        self.file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, self.file)

    def _holding(self) -> dict[str, Any]:
        state = self.held()
        if state is None:
            raise HeadError("this leg holds no attempt: `hale dna work next` claims one")
        return state

    def _lease(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"leg": self.name, "attempt": state["attempt"], "token": state["token"]}

    # ---- the verbs -------------------------------------------------------------------

    def next(self, requires: str = "") -> dict[str, Any] | None:
        """Claim one outstanding attempt (the one held, if any); None when none is open."""
        state = self.held()
        if state is not None:
            try:
                self.renew()
                return self.held()
            except HeadError as error:
                if not str(error).startswith("refused"):
                    raise
                self._keep(None)  # that lease is gone: claim afresh
        got = self._call("dna.attempt.claim", leg=self.name, requires=requires)
        if not got.get("attempt"):
            return None
        self._keep({**got, "granted": None, "calls": []})
        return self.held()

    def renew(self) -> dict[str, Any]:
        state = self._holding()
        got = self._call("dna.attempt.renew", **self._lease(state))
        self._keep({**state, "until": got["until"]})
        return got

    def allowance(self, wait: float = 30.0) -> dict[str, Any]:
        """The attempt's grant (asked once, before the first model call)."""
        state = self._holding()
        got = self._call("dna.attempt.allowance", wait=wait, **self._lease(state))
        if got.get("answered"):
            granted = 0 if got.get("refused") else int(got.get("granted", 0))
            self._keep({**state, "granted": granted, "refused": got.get("refused", "")})
        return got

    def call(self, prompt: str) -> str:
        """One model call within the grant: refused, and not made, when its known price is past what is left."""
        state = self._holding()
        if state.get("granted") is None:
            raise HeadError("ask for the allowance first (`hale dna work allowance`)")
        spent = sum(int(c["micros"]) for c in state["calls"])
        left = int(state["granted"]) - spent
        price = self.provider.price(prompt)
        if price is not None and price > left:
            raise HeadError(
                f"not called: the call costs {price} micro-dollars, past the {left} left of the grant"
            )
        text, micros = self.provider.complete(prompt)
        call = {"call": f"{state['attempt']}#leg{len(state['calls'])}", "model": self.provider.name,
                "micros": micros, "answer": text}  # fmt: skip
        self._keep({**state, "calls": [*state["calls"], call]})
        return text

    def submit(self, outcome: str, note: str = "") -> dict[str, Any]:
        """Settle the attempt: the outcome and the calls made go to the organization."""
        state = self._holding()
        got = self._call(
            "dna.attempt.outcome",
            outcome=outcome,
            note=note,
            calls=state["calls"],
            **self._lease(state),
        )
        self._keep(None)
        return {**got, "calls": len(state["calls"])}

    def release(self) -> dict[str, Any]:
        state = self._holding()
        got = self._call("dna.attempt.release", **self._lease(state))
        self._keep(None)
        return got
