"""A node's timings, read once from the environment so tests can shrink them.

Every period is in seconds. The defaults are the seeds' (a tick a second, a
30 s lease renewed every 10 s, killed within 5 s of expiry, the forge polled
every 300 s, a claim held 300 s, a concern's window 10 min); `HALE_DNA_GENOME_POLL=0` never polls. A value that is not a
number, or is negative, is refused with the variable's name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from hale_runtime import errors

ENV = {
    "tick_s": ("HALE_DNA_TICK", 1.0),
    "lease_s": ("HALE_DNA_LEASE_S", 30.0),
    "renew_s": ("HALE_DNA_LEASE_RENEW_S", 10.0),
    "margin_s": ("HALE_DNA_LEASE_MARGIN_S", 5.0),
    "poll_s": ("HALE_DNA_GENOME_POLL", 300.0),
    "git_timeout_s": ("HALE_DNA_GIT_TIMEOUT", 5.0),
    "stop_grace_s": ("HALE_DNA_STOP_GRACE", 5.0),
    "claim_ttl_s": ("HALE_DNA_CLAIM_TTL", 300.0),
    "concern_window_s": ("HALE_DNA_CONCERN_WINDOW", 600.0),
}


class SettingsError(errors.Refused, ValueError):
    """An environment variable holds something that is not a duration."""

    code = errors.EXIT_USAGE  # the variable, not the project, needs the fix


@dataclass(frozen=True)
class Settings:
    tick_s: float = 1.0
    lease_s: float = 30.0
    renew_s: float = 10.0
    margin_s: float = 5.0
    poll_s: float = 300.0
    git_timeout_s: float = 5.0
    stop_grace_s: float = 5.0
    claim_ttl_s: float = 300.0
    concern_window_s: float = 600.0  # a second firing for a target within it is a concern

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """The settings the environment names, the seeds' defaults elsewhere."""
        values = {}
        for field, (name, default) in ENV.items():
            text = env.get(name, "").strip()
            values[field] = _seconds(name, text) if text else default
        settings = cls(**values)
        if settings.lease_s <= settings.margin_s or settings.tick_s <= 0:
            raise SettingsError(
                "HALE_DNA_LEASE_S must exceed HALE_DNA_LEASE_MARGIN_S and HALE_DNA_TICK be positive"
            )
        return settings

    def as_env(self) -> dict[str, str]:
        """These settings as the variables a child process reads back."""
        return {name: repr(getattr(self, field)) for field, (name, _) in ENV.items()}


def _seconds(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r} is not a number of seconds") from None
    if value < 0:
        raise SettingsError(f"{name}={text!r} is negative")
    return value
