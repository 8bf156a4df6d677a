"""An OpenAI-compatible model provider over HTTP, configured by environment.

`HALE_DNA_MODEL_URL` names the API's base (`https://host/v1`; the provider
posts to `<base>/chat/completions`), `HALE_DNA_MODEL` the model, and
`HALE_DNA_MODEL_KEY` the bearer token when the endpoint wants one. Prices
are micro-dollars: `HALE_DNA_MODEL_CALL_MICROS` is a flat price per call,
known before the call; otherwise `HALE_DNA_MODEL_IN_MICROS` and
`HALE_DNA_MODEL_OUT_MICROS` per thousand prompt and completion tokens price a
call from the usage the answer reports, so its price is not known
beforehand (the gate then settles an overrun after the fact). Without
`HALE_DNA_MODEL_URL` no provider is offered and the offline one answers.
"""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hale_runtime import errors
from hale_runtime.performers.hookspecs import hookimpl

URL_ENV, MODEL_ENV, KEY_ENV = "HALE_DNA_MODEL_URL", "HALE_DNA_MODEL", "HALE_DNA_MODEL_KEY"
CALL_ENV, IN_ENV, OUT_ENV = (
    "HALE_DNA_MODEL_CALL_MICROS",
    "HALE_DNA_MODEL_IN_MICROS",
    "HALE_DNA_MODEL_OUT_MICROS",
)
TIMEOUT_ENV = "HALE_DNA_MODEL_TIMEOUT"


class ModelCallFailed(errors.Failed):
    """The endpoint did not answer a completion."""


@dataclass(frozen=True)
class HttpProvider:
    base: str
    model: str
    key: str = ""
    call_micros: int | None = None
    in_micros: int = 0  # per 1,000 prompt tokens
    out_micros: int = 0  # per 1,000 completion tokens
    timeout_s: float = 60.0

    @property
    def name(self) -> str:
        return f"http:{self.model}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> HttpProvider | None:
        base = env.get(URL_ENV, "").strip().rstrip("/")
        if not base:
            return None
        flat = env.get(CALL_ENV, "").strip()
        return cls(
            base, env.get(MODEL_ENV, "").strip() or "default", env.get(KEY_ENV, "").strip(),
            int(flat) if flat else None, int(env.get(IN_ENV) or 0), int(env.get(OUT_ENV) or 0),
            float(env.get(TIMEOUT_ENV) or 60.0),
        )  # fmt: skip

    def price(self, prompt: str) -> int | None:
        return self.call_micros

    def complete(self, prompt: str) -> tuple[str, int]:
        doc = self._post({"model": self.model, "messages": [{"role": "user", "content": prompt}]})
        return answer_of(doc), self.micros_of(doc)

    def micros_of(self, doc: dict[str, Any]) -> int:
        """What the answered call cost: the flat price, else its reported usage."""
        if self.call_micros is not None:
            return self.call_micros
        usage = doc.get("usage") or {}
        cost = int(usage.get("prompt_tokens", 0)) * self.in_micros
        cost += int(usage.get("completion_tokens", 0)) * self.out_micros
        return math.ceil(cost / 1000)

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        request = urllib.request.Request(
            f"{self.base}/chat/completions", json.dumps(body).encode(), headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise ModelCallFailed(f"{self.base}: {error}") from None


def answer_of(doc: dict[str, Any]) -> str:
    """The first choice's text of a chat completion."""
    try:
        return str(doc["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        raise ModelCallFailed("the endpoint answered no choice") from None


class HttpProviderPlugin:
    def __init__(self, provider: HttpProvider):
        self.provider = provider

    @hookimpl
    def hale_model_provider(self) -> object:
        return self.provider


def model_plugins(env: Mapping[str, str] = os.environ) -> list[HttpProviderPlugin]:
    """The HTTP provider's plugin when the environment configures one, else none."""
    provider = HttpProvider.from_env(env)
    return [HttpProviderPlugin(provider)] if provider is not None else []
