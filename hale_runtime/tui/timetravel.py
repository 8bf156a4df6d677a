"""A fold that moves both ways: the state after the first n items, for any n.

Folding forward applies the items in between to the state held. Going back
either re-folds from the start or restores the nearest checkpoint at or
before n (a deep copy taken every `every` items on the way forward) and
folds on from there, whichever the timings measured so far say is cheaper:
a copy of a large state costs more than re-folding a few thousand rows.
`shared` names what a copy may share rather than copy (frozen parts, such
as an execution's plans). The state handed out is the live one: readers
must not change it.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

S = TypeVar("S")
T = TypeVar("T")


class TimeMachine(Generic[S, T]):
    def __init__(
        self,
        make: Callable[[], S],
        apply: Callable[[S, T], None],
        items: Sequence[T],
        every: int = 4096,
        shared: Callable[[S], Iterable[object]] | None = None,
    ):
        self._make, self._apply, self.items = make, apply, items
        self.every, self._shared = every, shared
        self.state: S = make()
        self.n = 0
        self._checkpoints: dict[int, S] = {}
        self.copy_s = 0.0  # the last checkpoint's copy, timed
        self.apply_s = 2e-6  # one application, a running estimate

    def _copy(self, state: S) -> S:
        memo = {id(o): o for o in self._shared(state)} if self._shared else {}
        started = time.perf_counter()
        copied = copy.deepcopy(state, memo)
        self.copy_s = time.perf_counter() - started
        return copied

    def at(self, n: int) -> S:
        """The state after the first `n` items (clamped to those there are)."""
        n = max(0, min(n, len(self.items)))
        if n < self.n:
            self._rewind(n)
        self._forward(n)
        return self.state

    def _rewind(self, n: int) -> None:
        base = max((k for k in self._checkpoints if k <= n), default=0)
        restore = self.copy_s + (n - base) * self.apply_s
        if base and restore < n * self.apply_s:
            self.state, self.n = self._copy(self._checkpoints[base]), base
        else:
            self.state, self.n = self._make(), 0

    def _forward(self, n: int) -> None:
        apply, items, every = self._apply, self.items, self.every
        started, count = time.perf_counter(), n - self.n
        while self.n < n:
            apply(self.state, items[self.n])
            self.n += 1
            if self.n % every == 0 and self.n not in self._checkpoints:
                self._checkpoints[self.n] = self._copy(self.state)
                started, count = time.perf_counter(), n - self.n
        if count > 32:
            self.apply_s = (time.perf_counter() - started) / count
