"""The offline model provider: deterministic answers at a fixed price a call.

It answers from the prompt's own words (the distinct words, longest first,
up to eight), so a fresh machine with no model configured runs everything
and every run is the same. Its price is known before the call.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
OFFLINE_PRICE_MICROS = 1_000


class OfflineProvider:
    name = "offline"

    def __init__(self, price_micros: int = OFFLINE_PRICE_MICROS):
        self.price_micros = price_micros

    def price(self, prompt: str) -> int | None:
        return self.price_micros

    def complete(self, prompt: str) -> tuple[str, int]:
        words = list(dict.fromkeys(WORD.findall(prompt.lower())))
        words.sort(key=lambda w: (-len(w), w))
        return "considered: " + " ".join(words[:8]), self.price_micros
