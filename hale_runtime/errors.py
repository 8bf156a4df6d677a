"""The runtime's one tree of errors: `HaleRuntimeError`, and `Refused` under it.

Every exception that leaves its part derives from `HaleRuntimeError` and
carries the exit code a verb ends with (`code`). The `dna` group catches the
tree once (cli/__init__.py): `hale: <message>` on one line, exit `code`.
`Refused` is input the runtime will not take: a folder that is no project, a
row that does not fit its kind, a call the head will not make, an admission
the catalog refuses, a genome, a setting or a cron line that does not hold.
The other branches are the parts failing (the record, memory, the nerves, a
git command, a model call): an organization stops for those, and never for
a refusal. A record that runs elsewhere (`LeaseHeld`, `LedgerHeld`) exits 3, as
DESIGN.md fixes, and a setting that does not hold (`SettingsError`) 2.

This module imports nothing, so every layer can raise from it.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1  # refused or failed
EXIT_USAGE = 2
EXIT_LEASE_HELD = 3  # the body lease is held by another clone
EXIT_GENOME_MOVED = 75


class HaleRuntimeError(Exception):
    """Something the runtime says in one line to whoever asked."""

    code: int = EXIT_REFUSED  # the exit code a verb ends with

    @property
    def reason(self) -> str:
        """The one-line why, as the error was raised with it."""
        return str(self)


class Refused(HaleRuntimeError):
    """Input the runtime will not take; the message says why and writes nothing."""


class Failed(HaleRuntimeError):
    """A part (git, a build, a model call, a child process) that did not do its work."""


def one_line(error: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
