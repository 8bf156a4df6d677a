"""Diagnostics: every error hale reports about a `.hl` source.

A diagnostic carries a code, a lowercase one-line message, the span it is
about, and an optional help line. Rendering follows rustc:

    error[E0201]: undefined name `lenght`
     --> dna/org/own_workflows.hl:4:12
      |
    4 |     if lenght(d) > 0 { return d; }
      |        ^^^^^^
      |
      = help: did you mean `len`?

Runtime errors add a Hale stack trace (innermost call last), one frame a
line: `  in own_workflows at dna/org/own_workflows.hl:4`.

On a terminal (the caller decides: `highlight.wants_colour`) the severity
and the carets are coloured as rustc colours them, and the quoted source
line by Hale's Pygments lexer; the text is otherwise the same.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .fault import Fault as Fault  # re-exported: where the evaluator's users find it


@dataclass(slots=True, unsafe_hash=True)
class Span:
    """A region of one source file. Lines and columns count from 1;
    `end_col` is exclusive, as Lark reports it. Treated as immutable (it is
    hashed), but not frozen: a frozen dataclass's `__init__` sets each field
    through `object.__setattr__`, four times the cost, and the parser makes
    one Span per node."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a Hale stack trace."""

    fn: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"in {self.fn} at {self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span | None
    help: str | None = None
    severity: str = "error"  # "error" or "warning"
    trace: tuple[Frame, ...] = field(default=())
    # other places the message is about, each with a note (an earlier definition)
    related: tuple[tuple[Span, str], ...] = field(default=())

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self, sources: SourceMap | None = None, colour: bool = False) -> str:
        return render(self, sources, colour)


class HaleError(Exception):
    """Raised with one or more diagnostics; the CLI prints them and exits 1."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("\n".join(d.message for d in self.diagnostics))


class SourceMap:
    """Source texts by path, so a diagnostic can quote its line."""

    def __init__(self, texts: dict[str, str] | None = None):
        self._lines: dict[str, list[str]] = {}
        for path, text in (texts or {}).items():
            self.add(path, text)

    def add(self, path: str, text: str) -> None:
        self._lines[path] = text.splitlines()

    def line(self, path: str, n: int) -> str | None:
        lines = self._lines.get(path)
        if lines is None or not 1 <= n <= len(lines):
            return None
        return lines[n - 1]


# ANSI styles for a terminal: the severity (header and carets), then the rest
_SEVERITY = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m"}
_BOLD, _GUTTER, _RESET = "\x1b[1m", "\x1b[1;34m", "\x1b[0m"


def render(d: Diagnostic, sources: SourceMap | None = None, colour: bool = False) -> str:
    tone = _SEVERITY.get(d.severity, _BOLD) if colour else ""
    head = f"{d.severity}[{d.code}]"
    out = [f"{tone}{head}{_RESET}{_BOLD}: {d.message}{_RESET}" if tone else f"{head}: {d.message}"]
    if d.span is not None:
        out.extend(_excerpt(d.span, sources, tone))
    if d.help:
        out.append(f"  = help: {d.help}")
    if d.trace:
        out.append("stack trace (most recent call last):")
        out.extend(f"  {frame}" for frame in d.trace)
    return "\n".join(out)


def render_all(
    diags: Iterable[Diagnostic], sources: SourceMap | None = None, colour: bool = False
) -> str:
    return "\n\n".join(render(d, sources, colour) for d in diags)


def _excerpt(span: Span, sources: SourceMap | None, tone: str = "") -> list[str]:
    """The `-->` line and the quoted source with its carets; `tone` (an ANSI
    style) colours the carets and asks for the source to be highlighted."""
    text = sources.line(span.path, span.line) if sources else None
    gutter = " " * len(str(span.line))
    out = [f"{gutter}--> {span}"]
    if text is None:
        return out
    text = text.expandtabs(4)
    start = max(span.col - 1, 0)
    end = span.end_col - 1 if span.end_line == span.line else len(text)
    carets = "^" * max(end - start, 1)
    if not tone:
        return [*out, f"{gutter} |", f"{span.line} | {text}", f"{gutter} | {' ' * start}{carets}"]
    from .highlight import colour_line

    bar = f"{_GUTTER}|{_RESET}"
    return [
        f"{gutter}{_GUTTER}-->{_RESET} {span}",
        f"{gutter} {bar}",
        f"{_GUTTER}{span.line} |{_RESET} {colour_line(text)}",
        f"{gutter} {bar} {' ' * start}{tone}{carets}{_RESET}",
    ]


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A `help:` line suggesting the closest known name, if one is close."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
