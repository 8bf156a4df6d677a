"""An organization run in-process over one project, for the no-genome tests:
its rounds driven by hand (relay, hear, tick), asks written by the tests'
person or, past the door, by a stranger."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hostile import MALLORY, append_lines, line, row_id

from hale_runtime.nerves import Subscription
from hale_runtime.node.organization import Organization
from hale_runtime.node.relay import Relay
from hale_runtime.record import Record
from hale_runtime.record import kinds as k

HOLDER, ASKER = "org@box:c0ffee00", "org@desk:c0ffee00"
T = TypeVar("T")
# a genome whose catalog passes the memory ceiling (nested lists of strings)
GREEDY = """import "vendor/dna" as dna;

fn own_workflows(catalog: dna::WorkflowCatalog) -> String {
    let outer: List<List<String>> = [];
    let i = 0;
    while i < 200000 {
        let inner: List<String> = [];
        let j = 0;
        while j < 50 { inner.push(to_string(i * 100 + j) + "PAD"); j += 1; }
        outer.push(inner);
        i += 1;
    }
    return "";
}
""".replace("PAD", "y" * 200)


def ask(root: Path, intent: str, body: dict[str, Any]) -> str:
    """Write `intent.requested` as the tests' person; its intent id."""
    Record.open(root, who=ASKER).append(k.INTENT_REQUESTED, intent, body)
    return intent


class Running:
    """The organization (loaded), the relay and the nerves it hears."""

    def __init__(self, root: Path):
        self.root = root
        self.org = Organization(root, root, HOLDER)
        self.org.load()
        self.relay = Relay()
        self.heard: Subscription = self.org.nerves.subscribe("")
        self.ids = itertools.count(1)

    def rounds(self, n: int) -> None:
        for _ in range(n):
            self.relay.relay(self.org.record, self.org.nerves)
            self.org.round(self.heard.poll(0.05))

    def until(self, check: Callable[[], T], timeout: float = 30.0) -> T:
        """Rounds until `check()` holds (AssertionError past `timeout` s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.rounds(1)
            got = check()
            if got:
                return got
        raise AssertionError(f"nothing after {timeout}s of rounds")

    def stranger_asks(self, body: Any) -> str | None:
        """An unsigned `intent.requested` from a stranger, past the door; its intent
        id when the record reads it as an ask (None when it does not fit its kind)."""
        intent = f"i-{next(self.ids):012x}f"
        text = line(k.INTENT_REQUESTED, intent, body, who=MALLORY)
        append_lines(self.root, [text])
        record = Record.open(self.root)
        found = record.get(row_id(text))
        return intent if found is not None and not record.poison_of(found) else None
