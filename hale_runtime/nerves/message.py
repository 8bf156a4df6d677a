"""Messages on the nerves, and handing each to the topic its subject names.

A subject is dotted lowercase words (`schedule.requested`); its topic is the
same words in CamelCase (`ScheduleRequested`), with `_` and `-` splitting
words too (`workflow.cancel_requested` -> `WorkflowCancelRequested`). A
Dispatcher keeps handlers by topic, so a message reaches the subscription
its subject names with no bindings entry. Handler errors propagate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from hale_runtime.errors import HaleRuntimeError

SUBJECT = re.compile(r"[a-z0-9]+(?:[_-][a-z0-9]+)*(?:\.[a-z0-9]+(?:[_-][a-z0-9]+)*)*")
WORD_BREAK = re.compile(r"[._-]")
CAMEL_WORD = re.compile(r"[A-Z][a-z0-9]*")

Handler = Callable[["Message"], Any]


class NervesFailed(HaleRuntimeError):
    """The nerves could not carry a message; a node stops rather than act."""


@dataclass(frozen=True)
class Message:
    id: int
    subject: str
    body: dict[str, Any]

    @property
    def topic(self) -> str:
        return topic_of(self.subject)


def check_subject(subject: str) -> str:
    """`subject` if it is dotted lowercase words; ValueError otherwise."""
    if not isinstance(subject, str) or not SUBJECT.fullmatch(subject):
        raise ValueError(f"not a subject (dotted lowercase words): {subject!r}")
    return subject


def topic_of(subject: str) -> str:
    """`schedule.requested` -> `ScheduleRequested`."""
    return "".join(word.capitalize() for word in WORD_BREAK.split(check_subject(subject)))


def subject_of(topic: str) -> str:
    """`ScheduleRequested` -> `schedule.requested` (each CamelCase word a dotted word)."""
    words = CAMEL_WORD.findall(topic)
    if not words or "".join(words) != topic:
        raise ValueError(f"not a topic (CamelCase words): {topic!r}")
    return ".".join(word.lower() for word in words)


class Subscription(Protocol):
    def poll(
        self, timeout: float = 0.0, until: Callable[[], bool] | None = None
    ) -> list[Message]: ...
    def __iter__(self) -> Iterator[Message]: ...
    def close(self) -> None: ...


class Nerves(Protocol):
    dsn: str

    def publish(self, subject: str, body: dict[str, Any]) -> int: ...
    def subscribe(self, subject_prefix: str = "") -> Subscription: ...
    def close(self) -> None: ...


class Dispatcher:
    """Handlers by topic; `dispatch` hands a message to its subject's topic."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}

    def on(self, topic: str, handler: Handler | None = None) -> Any:
        """Register `handler` for `topic`; without one, a decorator that does."""
        subject_of(topic)  # refuse a name no subject could reach

        def register(fn: Handler) -> Handler:
            self._handlers.setdefault(topic, []).append(fn)
            return fn

        return register(handler) if handler is not None else register

    def topics(self) -> list[str]:
        return sorted(self._handlers)

    def dispatch(self, message: Message) -> int:
        """Call every handler of the message's topic; how many there were."""
        handlers = self._handlers.get(message.topic, [])
        for handler in handlers:
            handler(message)
        return len(handlers)

    def pump(self, subscription: Subscription, timeout: float = 0.0) -> int:
        """Poll once and dispatch what arrived; how many messages were handled."""
        return sum(1 for m in subscription.poll(timeout) if self.dispatch(m))
