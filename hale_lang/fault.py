"""A runtime fault: what a native or generated code raises while a program runs.

It sits below diagnostics.py (which renders what the evaluator makes of a
fault) because the natives raise it, and diagnostics colours a source line
through highlight.py, which reads the natives' names: with the fault here,
the natives import nothing that renders.
"""

from __future__ import annotations


class Fault(Exception):
    """A runtime error raised inside evaluation (by generated code or a
    native). The evaluator turns it into a Diagnostic with the span of the
    Hale expression that raised it and a Hale stack trace."""

    def __init__(self, code: str, message: str, help: str | None = None):
        super().__init__(message)
        self.code, self.message, self.help = code, message, help
