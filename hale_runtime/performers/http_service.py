"""The service reached over HTTP: a performer whose effect lies outside the record.

`HALE_DNA_SERVICE_URL` names an endpoint; with it set, the `service` kind
(offering the capabilities in `HALE_DNA_SERVICE_OFFERS`, comma-separated,
`analysis` by default) does each attempt by POSTing it there as JSON
(`attempt`, `task`, `objective`, `requires`, `token`; the attempt id again
as the `Idempotency-Key` header), bounded by `HALE_DNA_SERVICE_TIMEOUT`
seconds (60). A 2xx answer's JSON `outcome` (succeeded unless it says
failed) and `detail` are the attempt's; any other status is a failed
attempt the service answered.

Whether the effect happened once is this performer's to say, so it keeps
its own record of each call in the record, around the call:

- `effect.calling <attempt> {performer, url}` is appended before the request
  is sent;
- `effect.called <attempt> {performer, outcome, detail}` once the endpoint
  has answered, before the engine records the outcome.

After a crash it reconciles from those rows: `effect.called` is its answer
(it acted); neither means it did not act (delivered again). `effect.calling`
alone means the process died between its call and its record; then it asks
the service, which keeps its own record by idempotency key (the convention,
docs/engine.md "A service that says what it did"): `GET <url>/effects/<key>`
(the key percent-encoded) answering 200 with JSON `{"acted": true,
"outcome": …, "detail": …}` or `{"acted": false}`. Acted is the attempt's
answer; not acted is a delivery again under the same key. Any other answer
(no such route, a status other than 200, no boolean `acted`, no answer in
`HALE_DNA_SERVICE_TIMEOUT`) and it cannot say: a person decides
(`effect.unresolved`). At delivery, a request the
endpoint refused to connect was never sent (failed, retried as usual), and
one sent that got no answer (a timeout, a dropped connection) cannot say
either.

`HALE_DNA_TEST_SERVICE_PAUSE` (`before:<s>` or `after:<s>`) is a test hook:
it holds the process that long just before `effect.calling` or just after
`effect.called`, so a test can kill it at that point.
"""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hale_runtime.performers.base import (
    ACTED,
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    UNKNOWN,
    Answer,
    Context,
    Reconciled,
    Unsure,
    Work,
)
from hale_runtime.performers.hookspecs import hookimpl
from hale_runtime.record import kinds

URL_ENV, OFFERS_ENV, TIMEOUT_ENV = (
    "HALE_DNA_SERVICE_URL",
    "HALE_DNA_SERVICE_OFFERS",
    "HALE_DNA_SERVICE_TIMEOUT",
)
PAUSE_ENV = "HALE_DNA_TEST_SERVICE_PAUSE"
CALLING, CALLED = kinds.EFFECT_CALLING, kinds.EFFECT_CALLED


class NotSent(Exception):
    """The request never left: nothing can have happened."""


@dataclass(frozen=True)
class HttpService:
    url: str
    capabilities: frozenset[str] = frozenset({"analysis"})
    timeout_s: float = 60.0
    kind: str = "service"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> HttpService | None:
        url = env.get(URL_ENV, "").strip()
        if not url:
            return None
        offers = [w.strip() for w in (env.get(OFFERS_ENV) or "analysis").split(",") if w.strip()]
        return cls(url, frozenset(offers), float(env.get(TIMEOUT_ENV) or 60.0))

    def offers(self, capability: str) -> bool:
        return capability in self.capabilities

    def deliver(self, work: Work, ctx: Context) -> Answer | Unsure:
        if ctx.journal is None:
            return Answer(FAILED, "the service keeps a journal, and this engine offers none")
        _pause("before")
        ctx.journal(CALLING, work.attempt, {"performer": self.kind, "url": self.url})
        try:
            outcome, detail = self._call(work)
        except NotSent as why:
            return Answer(FAILED, f"the service was not reached: {why}")
        except (OSError, http.client.HTTPException) as error:
            return Unsure(f"the call to {self.url} was sent and never answered: {error}")
        body = {"performer": self.kind, "outcome": outcome, "detail": detail}
        ctx.journal(CALLED, work.attempt, body)
        _pause("after")
        return Answer(outcome, detail)

    def reconcile(self, work: Work, ctx: Context) -> Reconciled:
        called = [body for kind, body in work.facts if kind == CALLED]
        if called:
            said = called[-1]
            outcome = SUCCEEDED if said.get("outcome") == SUCCEEDED else FAILED
            return Reconciled(
                ACTED, Answer(outcome, f"{said.get('detail', '')} (from its journal)")
            )
        if any(kind == CALLING for kind, _ in work.facts):
            said = self.effect_of(work.attempt)
            if said is not None:
                return said
            why = f"the call to {self.url} was sent, and the process died before it recorded an answer"
            return Reconciled(UNKNOWN, why=why)
        return Reconciled(NOT_ACTED)

    def effects_url(self, key: str) -> str:
        return f"{self.url.rstrip('/')}/effects/{urllib.parse.quote(key, safe='')}"

    def effect_of(self, key: str) -> Reconciled | None:
        """What the service's own record says of `key` (None: it cannot say)."""
        request = urllib.request.Request(self.effects_url(key), method="GET")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                doc: Any = json.loads(response.read() or b"{}") if response.status == 200 else {}
        except (OSError, http.client.HTTPException, ValueError):
            return None  # HTTPError (404: no such convention) and URLError are OSErrors
        acted = doc.get("acted") if isinstance(doc, dict) else None
        if acted is False:
            return Reconciled(NOT_ACTED)
        if acted is not True:
            return None
        outcome = FAILED if doc.get("outcome") == FAILED else SUCCEEDED
        return Reconciled(
            ACTED, Answer(outcome, f"{doc.get('detail', '')} (from the service's record)")
        )

    def _call(self, work: Work) -> tuple[str, str]:
        """(outcome, detail) as the endpoint answered. urllib raises URLError
        only while it connects and sends (NotSent: no whole request reached
        the endpoint); an error waiting for or reading the answer rises as it
        is (OSError, HTTPException): the call may have been acted on."""
        doc = {"attempt": work.attempt, "task": work.task, "objective": work.objective,
               "requires": list(work.requires), "token": work.token}  # fmt: skip
        headers = {"Content-Type": "application/json", "Idempotency-Key": work.attempt}
        request = urllib.request.Request(self.url, json.dumps(doc).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return _answer(response.read())
        except urllib.error.HTTPError as error:
            return FAILED, f"the service answered {error.code} {error.reason}"
        except urllib.error.URLError as error:  # raised while connecting or sending
            raise NotSent(str(error.reason)) from None


def _answer(raw: bytes) -> tuple[str, str]:
    try:
        doc: Any = json.loads(raw or b"{}")
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    outcome = FAILED if doc.get("outcome") == FAILED else SUCCEEDED
    return outcome, str(doc.get("detail", ""))


def _pause(point: str) -> None:
    where, _, seconds = os.environ.get(PAUSE_ENV, "").partition(":")
    if where == point and seconds:
        time.sleep(float(seconds))


class HttpServicePlugin:
    def __init__(self, service: HttpService):
        self.service = service

    @hookimpl
    def hale_performers(self) -> list:
        return [self.service]


def service_plugins(env: Mapping[str, str] = os.environ) -> list[HttpServicePlugin]:
    """The HTTP service's plugin when the environment names one, else none."""
    service = HttpService.from_env(env)
    return [HttpServicePlugin(service)] if service is not None else []
