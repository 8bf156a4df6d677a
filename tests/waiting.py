"""Waiting on another process in a test: poll a check until it holds, or fail
saying what never came. A deadline, never a fixed sleep, so that a loaded
machine is waited for and a quiet one is not."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(check: Callable[[], T], timeout: float, what: str, step: float = 0.1) -> T:
    """The first true value of `check()`; AssertionError naming `what` past `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
