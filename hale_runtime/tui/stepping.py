"""Genome stepping: one Scheduler tick re-run with the language's debug hooks,
recorded statement by statement, then stepped through both ways.

`replay_tick` rebuilds the Scheduler as the record stood just before a tick
(the schedule fold of schedules/state.py over the rows before it, each
schedule held with its floor, pause and last task, as the locus does) and
ticks it at the tick's time against a host that answers from the record:
an occurrence's admission returns the task the record admitted under its
ask, `is_open` whether that task had settled by then, and the rows the tick
decides are collected, not written. A Recorder hook takes a snapshot at
every statement (where, the call stack, each local's text) and at every
return, up to a cap; `record_fn` records any fn of a genome file the same
way (`hale dna debug --fn file.hl:fn`). The Stepper walks the frames: forward, back, over a
call, out of one, and on to a breakpoint on a `.hl` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from hale_runtime.record import Row, kinds
from hale_runtime.schedules.state import Fold
from hale_runtime.schedules.terms import ask_id, parse_ask, stamp

TICK_KINDS = frozenset({kinds.SCHEDULE_SKIPPED, kinds.SCHEDULE_MISSED, kinds.SCHEDULE_FAILED})
TICK_SLACK_MS = 1000  # a tick's rows are written within this much of one another
MAX_FRAMES = 20_000
MAX_REPR = 240


class TraceFrame(NamedTuple):
    event: str  # "line" (about to run the statement) or "return"
    fn: str
    path: str
    line: int
    depth: int
    stack: tuple[str, ...]
    locals: tuple[tuple[str, str], ...]
    value: str = ""  # what a return returned


@dataclass
class Trace:
    title: str
    what: str = "tick"  # the fn stepped, as the panes name it
    frames: list[TraceFrame] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)
    result: str = ""
    error: str = ""
    decided: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


class TraceFull(Exception):
    """Raised by the Recorder to stop a run past the cap; Program re-raises it as is."""


def show_value(value: object) -> str:
    """A local's text in Hale's syntax (hale_lang/show.py), host objects by type."""
    from hale_lang.show import show

    return show(value, MAX_REPR)


class Recorder:
    """Debug hooks that snapshot every statement and return into a Trace."""

    def __init__(self, trace: Trace, cap: int = MAX_FRAMES):
        self.trace, self.cap = trace, cap
        self.stack: list[str] = []
        self.last_locals: list[tuple[tuple[str, str], ...]] = []

    def _add(self, frame: TraceFrame) -> None:
        if len(self.trace.frames) >= self.cap:
            raise TraceFull(f"stopped after {self.cap} steps")
        self.trace.frames.append(frame)

    def on_call(self, f: Any) -> None:
        self.stack.append(f"{f.fn}:{f.line}")
        self.last_locals.append(())

    def on_statement(self, f: Any) -> None:
        local = tuple((k, show_value(v)) for k, v in f.locals.items())
        if self.last_locals:
            self.last_locals[-1] = local
        self._add(TraceFrame("line", f.fn, f.path, f.line, f.depth, tuple(self.stack), local))

    def on_return(self, f: Any, value: object) -> None:
        local = self.last_locals.pop() if self.last_locals else ()
        frame = TraceFrame("return", f.fn, f.path, f.line, f.depth, tuple(self.stack), local,
                           show_value(value))  # fmt: skip
        if self.stack:
            self.stack.pop()
        self._add(frame)


def record_call(program: Any, module: str, fn: str, args: Sequence[object], title: str,
                cap: int = MAX_FRAMES, json_args: bool = False) -> Trace:  # fmt: skip
    """Call `fn` of `module` with hooks on; the trace of every statement it ran.
    With `json_args`, the arguments are JSON data converted to the parameters' types."""
    from hale_lang.diagnostics import HaleError

    trace = Trace(title, fn)
    program.set_hooks(Recorder(trace, cap))
    try:
        if json_args:
            value = program.call_json(module, fn, list(args))
        else:
            value = program.call(module, fn, *args)
        trace.result = show_value(value)
    except TraceFull as full:
        trace.error = str(full)
    except HaleError as exc:
        trace.error = str(exc)
    finally:
        program.set_hooks(None)
    for path in {f.path for f in trace.frames}:
        trace.sources[path] = source_lines(program, path)
    return trace


def parse_target(text: str) -> tuple[str, str]:
    """`dna/org/models.hl:org_budget` -> ("dna/org/models.hl", "org_budget")."""
    path, _, fn = text.rpartition(":")
    if not path.endswith(".hl") or not fn.isidentifier():
        raise ValueError(f"--fn is <file.hl>:<fn>, not {text!r}")
    return path, fn


def record_fn(root: Path, target: str, args: Sequence[str] = (), cap: int = MAX_FRAMES) -> Trace:
    """Build the genome file of `target` (`<file.hl>:<fn>`, the file under `root`)
    and call its fn with `args` (JSON texts) with hooks on; raises ValueError on
    a bad target or argument, HaleError when the file does not build or has no
    such fn (or takes other arguments)."""
    import json

    from hale_lang.build import build

    path, fn = parse_target(target)
    file = Path(path)
    module = (file.resolve().relative_to(root.resolve()) if file.is_absolute() else file).as_posix()
    if not (root / module).is_file():
        raise ValueError(f"no file {module} in the genome at {root}")
    values = []
    for n, text in enumerate(args, 1):
        try:
            values.append(json.loads(text))
        except ValueError as exc:
            raise ValueError(f"--arg {n} is not JSON: {exc}") from None
    program = build(root, [module])
    meta = program.fn(module, fn)  # an unknown fn is refused here, not traced
    if len(values) != len(meta.params):
        raise ValueError(f"{fn} takes {len(meta.params)} argument(s), {len(values)} given (--arg)")
    title = f"{module}:{fn}({', '.join(args)})"
    return record_call(program, module, fn, values, title, cap, json_args=True)


def source_lines(program: Any, path: str) -> list[str]:
    lines: list[str] = []
    while (text := program.sources.line(path, len(lines) + 1)) is not None:
        lines.append(text)
    return lines


# ---- re-running a tick from the record ------------------------------------------------


def is_tick_row(row: Row) -> bool:
    """A row a Scheduler tick wrote: a skip, a miss, a refusal, an occurrence admitted."""
    if row.kind in TICK_KINDS:
        return True
    return (
        row.kind == kinds.WORKFLOW_ADMITTED
        and "parent" not in row.body
        and (parse_ask(str(row.body.get("ask", ""))) is not None)
    )


def tick_of(rows: Sequence[Row], index: int) -> tuple[int, int]:
    """(rows before the tick, its time) for the tick behind row `index`; a row no
    tick wrote stands for a tick at its time, with the record up to it folded."""
    row = rows[index]
    if not is_tick_row(row):
        return index + 1, row.at
    start = index
    while (
        start > 0 and is_tick_row(rows[start - 1]) and row.at - rows[start - 1].at <= TICK_SLACK_MS
    ):
        start -= 1
    return start, rows[start].at


class ReplayHost:
    """Answers the Scheduler from the record as it stood before the tick."""

    def __init__(self, rows: Sequence[Row], before: int):
        self.asks = {r.body["ask"]: r.key for r in rows if r.kind == kinds.WORKFLOW_ADMITTED
                     and "ask" in r.body}  # fmt: skip
        self.settled = {r.key for r in rows[:before] if r.kind == kinds.WORKFLOW_SETTLED}

    def admit(self, schedule: str, at: int) -> str:
        return self.asks.get(ask_id(schedule, at), "t? (not in the record)")

    def is_open(self, task: str) -> bool:
        return task not in self.settled


def replay_tick(rows: Sequence[Row], index: int, scheduler: Any, cap: int = MAX_FRAMES) -> Trace:
    """Re-run the tick behind row `index` on `scheduler` (a schedules Scheduler,
    whose state is replaced) with hooks on, as the record stood before it."""
    from hale_runtime.schedules.binding import ScheduleHost

    before, now = tick_of(rows, index)
    fold = Fold().apply_all(rows[:before])
    modes = {r.key: r.body.get("mode") for r in rows[:before] if r.kind == kinds.SCHEDULE_DECLARED}
    scheduler.state = scheduler.program.call(scheduler.entry, "new_scheduler")
    for sid, s in fold.schedules.items():
        scheduler.hold(s.terms, modes.get(sid) == "overlap", s.floor, s.paused, s.last_task)
    answers = ReplayHost(rows, before)
    host = ScheduleHost(None, None, answers.admit, answers.is_open)
    title = f"tick at {stamp(now)}, {len(fold.schedules)} schedule(s)"
    args = (scheduler.state, host, scheduler.cron, now)
    trace = record_call(scheduler.program, scheduler.entry, "tick", args, title, cap)
    trace.decided = host.take_rows()
    return trace


def load_scheduler(root: Path | None) -> Any:
    """The Scheduler the node would run for the genome at `root`."""
    from hale_runtime.schedules.scheduler import Scheduler

    return Scheduler(root)


# ---- stepping ---------------------------------------------------------------------------


def parse_breakpoint(text: str) -> tuple[str, int]:
    """`scheduler.hl:230` -> ("scheduler.hl", 230); the path matches by its end."""
    path, _, line = text.rpartition(":")
    if not path or not line.isdigit():
        raise ValueError(f"a breakpoint is <file.hl>:<line>, not {text!r}")
    return path, int(line)


class Stepper:
    def __init__(self, trace: Trace, breakpoints: Sequence[tuple[str, int]] = ()):
        self.trace = trace
        self.pos = 0
        self.breakpoints: set[tuple[str, int]] = set(breakpoints)
        self.message = ""

    @property
    def frame(self) -> TraceFrame | None:
        frames = self.trace.frames
        return frames[self.pos] if frames else None

    def step(self, delta: int = 1) -> None:
        """Statement by statement (into calls), forward or back."""
        self.pos = max(0, min(len(self.trace.frames) - 1, self.pos + delta))
        self.message = ""

    def _seek(self, test: Any, forward: bool, what: str) -> bool:
        frames = self.trace.frames
        rng = range(self.pos + 1, len(frames)) if forward else range(self.pos - 1, -1, -1)
        for p in rng:
            if test(frames[p]):
                self.pos, self.message = p, ""
                return True
        self.message = f"no {what} {'after' if forward else 'before'} this step"
        return False

    def over(self, forward: bool = True) -> bool:
        """The next statement in this frame or a caller's: calls are stepped over."""
        here = self.frame
        return here is not None and self._seek(lambda f: f.depth <= here.depth, forward, "step")

    def out(self) -> bool:
        """Run until this call returns."""
        here = self.frame
        if here is None:
            return False
        return self._seek(lambda f: f.event == "return" and f.depth == here.depth, True, "return")

    def on_breakpoint(self, f: TraceFrame) -> bool:
        return f.event == "line" and any(
            f.line == line and f.path.endswith(path) for path, line in self.breakpoints
        )

    def continue_(self, forward: bool = True) -> bool:
        if not self.breakpoints:
            self.message = "no breakpoint is set (b on a source line)"
            return False
        return self._seek(self.on_breakpoint, forward, "breakpoint")

    def toggle(self, path: str, line: int) -> None:
        mark = (path, line)
        if mark in self.breakpoints:
            self.breakpoints.discard(mark)
            self.message = f"breakpoint {path}:{line} cleared"
        else:
            self.breakpoints.add(mark)
            self.message = f"breakpoint {path}:{line} set"
