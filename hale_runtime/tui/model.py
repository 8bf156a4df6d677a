"""The debugger's model: the record's rows, a cursor, filters, breakpoints,
and every pane's content as of the cursor.

The rows are indexed once (and again only for rows a follow appends): each
execution row under its root task, each schedule row, each `model.called`
row under its budget window with running sums. The cursor is an index into
the rows; moving steps through the rows the filters let through. The tree
is the engine's own fold (`State.apply`) of the cursor's root's rows up to
and including the cursor, kept in a TimeMachine per root, so a step either
way costs a few applications; the schedule state is the Scheduler's fold
(schedules/state.py) kept the same way; the budget as of the cursor is a
bisection into its window's running sums.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any, NamedTuple

from hale_lang.gc_pause import collector_paused
from hale_runtime.engine import ids
from hale_runtime.engine.budget import DAY_MS, Budget, BudgetPolicy
from hale_runtime.engine.state import State, Unit
from hale_runtime.record import Row, kinds
from hale_runtime.schedules.state import KINDS as SCHEDULE_KINDS
from hale_runtime.schedules.state import Fold, ScheduleState
from hale_runtime.schedules.terms import parse_ask
from hale_runtime.tui.timetravel import TimeMachine
from hale_runtime.tui.tree import TreeLine, tree_lines

OUTCOME_KINDS = frozenset({kinds.ATTEMPT_OUTCOME, kinds.WORK_SETTLED, kinds.WORKFLOW_SETTLED})
FAILURE_KINDS = frozenset(
    {kinds.SCHEDULE_FAILED, kinds.SCHEDULE_REFUSED, kinds.REPLY_REFUSED, kinds.BUDGET_REFUSED,
     kinds.BUDGET_EXHAUSTED, kinds.EFFECT_UNRESOLVED}
)  # fmt: skip


# What a row is about, as the record pane marks it (widgets.MARKS): a case a
# person is to answer, a fence, a failure, a reading (an application event,
# and what its node did about it) or a concern raised from readings.
CASE_KINDS = frozenset({kinds.BOARD_CASE, kinds.EFFECT_UNRESOLVED})
FENCE_KINDS = frozenset({kinds.WORKFLOW_CANCELLED})
READING_KINDS = frozenset({kinds.READING_TAKEN, kinds.READING_ACTED})
CONCERN_KINDS = frozenset({kinds.CONCERN_RAISED})


def row_mark(row: Row) -> str:
    """ "case", "fence", "failure", "reading", "concern", or "" (nothing to mark)."""
    if row.kind in READING_KINDS:
        return "reading"
    if row.kind in CONCERN_KINDS:
        return "concern"
    if row.kind in CASE_KINDS:
        return "case"
    if row.kind in FENCE_KINDS or (
        row.kind in OUTCOME_KINDS and row.body.get("outcome") == "cancelled"
    ):
        return "fence"
    return "failure" if is_failure(row) else ""


def is_failure(row: Row) -> bool:
    """A row that says something did not go as asked."""
    if row.kind in OUTCOME_KINDS:
        return row.body.get("outcome") != "succeeded"
    return row.kind in FAILURE_KINDS


class Filters(NamedTuple):
    kinds: tuple[str, ...] = ()  # exact kinds, or prefixes ending in "." or "*"
    key_prefix: str = ""

    def admits(self, row: Row) -> bool:
        if self.key_prefix and not row.key.startswith(self.key_prefix):
            return False
        return not self.kinds or any(_kind_matches(k, row.kind) for k in self.kinds)

    @property
    def active(self) -> bool:
        return bool(self.kinds or self.key_prefix)

    def text(self) -> str:
        parts = [f"kind:{','.join(self.kinds)}"] if self.kinds else []
        return " ".join(parts + ([f"key:{self.key_prefix}"] if self.key_prefix else []))


def _kind_matches(pattern: str, kind: str) -> bool:
    if pattern.endswith("*"):
        return kind.startswith(pattern[:-1])
    return kind == pattern or (pattern.endswith(".") and kind.startswith(pattern))


def parse_filter(text: str) -> Filters:
    """`kind:attempt.,work.settled key:t1/` (a bare word is a key prefix)."""
    kinds: list[str] = []
    prefix = ""
    for word in text.split():
        if word.startswith("kind:"):
            kinds += [k for k in word[5:].split(",") if k]
        else:
            prefix = word.removeprefix("key:")
    return Filters(tuple(kinds), prefix)


def _apply_row(state: State, row: Row) -> None:
    state.apply(row.kind, row.key, row.body, row.at)


def _new_state() -> State:
    return State(Budget(BudgetPolicy("none", 0)))


def _plans(state: State) -> Iterable[object]:
    """The frozen plans a state refers to: a copy of the state shares them."""
    for t in state.tasks.values():
        yield t.plan
        for step in t.steps:
            for m in step.members.values():
                yield m.leaf if isinstance(m, Unit) else m.plan


class DebugModel:
    def __init__(
        self,
        rows: Iterable[Row],
        task: str | None = None,
        budget: BudgetPolicy | None = None,
        every: int = 4096,
    ):
        self.rows: list[Row] = []
        self.task = task
        self.budget = Budget(budget or BudgetPolicy("day", 0))
        self.every = every
        self.filters = Filters()
        self.visible: list[int] = []
        self.pos = -1  # index into visible
        self.break_kinds: set[str] = set()
        self.break_keys: set[str] = set()
        self.search_text = ""
        self.message = ""
        self.fold_errors: list[str] = []
        self._roots: dict[str, list[Row]] = {}  # root -> its rows, in order
        self._root_seqs: dict[str, list[int]] = {}  # root -> their indices
        self._machines: dict[str, TimeMachine[State, Row]] = {}
        self._sched_rows: list[Row] = []
        self._sched_idx: list[int] = []
        self._sched = TimeMachine(Fold, Fold.apply, self._sched_rows, every)
        self._spend: dict[str, tuple[list[int], list[int]]] = {}  # window -> (indices, sums)
        self._announced: dict[str, int] = {}  # window -> first budget.exhausted index
        self._windows: dict[int, str] = {}  # UTC day -> its window's label
        self.extend(rows)
        first = self._first_of(task) if task else None
        self.pos = self._vpos(first) if first is not None else len(self.visible) - 1

    # ---- the rows ------------------------------------------------------------------

    def extend(self, rows: Iterable[Row]) -> int:
        """Index rows appended to the record (at load, and by follow); how many."""
        with collector_paused():
            return self._extend(rows)

    def _extend(self, rows: Iterable[Row]) -> int:
        start = len(self.rows)
        self.rows.extend(rows)
        roots, seqs, sched = self._roots, self._root_seqs, SCHEDULE_KINDS
        for i in range(start, len(self.rows)):
            row = self.rows[i]
            root = row.key.split("/", 1)[0].split(".", 1)[0]
            group = roots.get(root)
            if group is None and row.kind == kinds.WORKFLOW_ADMITTED and "plan" in row.body:
                group, seqs[root] = roots.setdefault(root, []), []
            if group is not None:
                group.append(row)
                seqs[root].append(i)
            if row.kind in sched:
                self._sched_rows.append(row)
                self._sched_idx.append(i)
            elif row.kind == kinds.MODEL_CALLED or row.kind == kinds.BUDGET_EXHAUSTED:
                self._index_budget(i, row)
        if self.filters.active:
            admits = self.filters.admits
            self.visible.extend(i for i in range(start, len(self.rows)) if admits(self.rows[i]))
        else:
            self.visible.extend(range(start, len(self.rows)))
        return len(self.rows) - start

    def _index_budget(self, i: int, row: Row) -> None:
        if row.kind == kinds.MODEL_CALLED:
            day = row.at // DAY_MS  # a window is whole days: one label a day, computed once
            window = self._windows.get(day)
            if window is None:
                window = self._windows[day] = self.budget.window_of(row.at)
            idx, sums = self._spend.setdefault(window, ([], []))
            idx.append(i)
            sums.append((sums[-1] if sums else 0) + int(row.body.get("micros", 0)))
        else:
            window = str(row.body.get("window", row.key.removeprefix("budget/")))
            self._announced.setdefault(window, i)

    def has_task(self, task: str) -> bool:
        return self._first_of(task) is not None

    def _first_of(self, task: str) -> int | None:
        for i in self._root_seqs.get(ids.root_of(task), ()):
            if self._in_task(self.rows[i], task):
                return i
        return None

    def _vpos(self, index: int) -> int:
        """The place in `visible` of the last visible row at or before `index`."""
        return max(bisect_right(self.visible, index) - 1, 0 if self.visible else -1)

    # ---- the cursor ----------------------------------------------------------------

    @property
    def cursor(self) -> int:
        """The index of the row under the cursor (-1 when nothing is shown)."""
        return self.visible[self.pos] if self.pos >= 0 else -1

    @property
    def row(self) -> Row | None:
        return self.rows[self.cursor] if self.pos >= 0 else None

    def move(self, delta: int) -> None:
        if self.visible:
            self.pos = max(0, min(len(self.visible) - 1, self.pos + delta))
        self.message = ""

    def home(self) -> None:
        self.move(-len(self.visible))

    def end(self) -> None:
        self.move(len(self.visible))

    def goto(self, index: int) -> None:
        """Put the cursor on row `index` (or the last visible row before it)."""
        self.pos = self._vpos(index)

    def _jump(self, test: Any, forward: bool, what: str) -> bool:
        """Move to the next (or previous) visible row passing `test`."""
        rng = range(self.pos + 1, len(self.visible)) if forward else range(self.pos - 1, -1, -1)
        rows, visible = self.rows, self.visible
        for p in rng:
            if test(rows[visible[p]]):
                self.pos, self.message = p, ""
                return True
        self.message = f"no {what} {'after' if forward else 'before'} this row"
        return False

    def next_in_task(self, forward: bool = True) -> bool:
        task = self.tree_task
        if task is None:
            self.message = "no execution is selected"
            return False
        return self._jump(lambda r: self._in_task(r, task), forward, f"row of {task}")

    @staticmethod
    def _in_task(row: Row, task: str) -> bool:
        owner = row.key.split("/", 1)[0]
        return owner == task or owner.startswith(task + ".")

    def next_failure(self, forward: bool = True) -> bool:
        return self._jump(is_failure, forward, "failure")

    def continue_(self, forward: bool = True) -> bool:
        """Run to the next row on a breakpoint."""
        if not (self.break_kinds or self.break_keys):
            self.message = "no breakpoint is set (b: this row's kind, B: its key)"
            return False
        return self._jump(self.on_breakpoint, forward, "breakpoint")

    def on_breakpoint(self, row: Row) -> bool:
        return row.kind in self.break_kinds or any(row.key.startswith(k) for k in self.break_keys)

    def search(self, text: str | None = None, forward: bool = True) -> bool:
        """The next row whose kind, key, who or body holds `text` (case-blind)."""
        if text is not None:
            self.search_text = text
        needle = self.search_text.lower()
        if not needle:
            return False

        def hit(r: Row) -> bool:
            if needle in r.kind or needle in r.key.lower() or needle in r.who.lower():
                return True
            return needle in json.dumps(r.body, ensure_ascii=False).lower()

        return self._jump(hit, forward, f"match for {self.search_text!r}")

    # ---- filters, breakpoints, the task ---------------------------------------------

    def set_filter(self, filters: Filters | str) -> None:
        at = self.cursor
        self.filters = parse_filter(filters) if isinstance(filters, str) else filters
        if self.filters.active:
            shows = self.filters.admits
            self.visible = [i for i, r in enumerate(self.rows) if shows(r)]
        else:
            self.visible = list(range(len(self.rows)))
        self.pos = self._vpos(at) if at >= 0 else len(self.visible) - 1
        self.message = f"{len(self.visible)} of {len(self.rows)} rows shown"

    def toggle_break_kind(self) -> None:
        if self.row is not None:
            self.message = _toggle(self.break_kinds, self.row.kind, "kind")

    def toggle_break_key(self) -> None:
        if self.row is not None:
            self.message = _toggle(self.break_keys, self.row.key, "key")

    def select_task(self) -> None:
        """Make the cursor row's task the centre's (or, off an execution, none)."""
        row = self.row
        owner = row.key.split("/", 1)[0] if row else ""
        self.task = owner if row and ids.root_of(owner) in self._roots else None
        self.message = f"execution {self.task}" if self.task else "following the cursor's task"

    @property
    def tree_task(self) -> str | None:
        """The selected task, else the root of the cursor row's execution."""
        if self.task:
            return self.task
        row = self.row
        root = ids.root_of(row.key) if row else ""
        return root if root in self._roots else None

    # ---- the panes as of the cursor ---------------------------------------------------

    def state(self) -> State | None:
        """The engine's state of the tree task's root, folded up to the cursor."""
        task = self.tree_task
        if task is None:
            return None
        root = ids.root_of(task)
        machine = self._machines.get(root)
        if machine is None:
            machine = TimeMachine(
                _new_state, self._safe_apply, self._roots[root], self.every, _plans
            )
            self._machines[root] = machine
        return machine.at(bisect_right(self._root_seqs[root], self.cursor))

    def _safe_apply(self, state: State, row: Row) -> None:
        try:
            _apply_row(state, row)
        except (KeyError, IndexError, AssertionError, TypeError) as exc:
            self.fold_errors.append(f"row {row.seq} {row.kind} {row.key}: not folded ({exc!r})")

    def tree(self) -> list[TreeLine]:
        state, task = self.state(), self.tree_task
        if state is None or task is None:
            return []
        return tree_lines(state, task)

    def performer(self) -> str:
        """Who performs the cursor row's attempt (or its unit's latest attempt)."""
        row, state = self.row, self.state()
        if row is None:
            return ""
        if state is not None:
            a = state.attempts.get(row.key)
            unit = state.units.get(row.key)
            if a is None and unit is not None and unit.attempts:
                a = unit.attempts[-1]
            if a is not None:
                return a.performer
        return str(row.body.get("performer", ""))

    def budget_as_of(self) -> dict[str, Any]:
        """The spend of the cursor's window up to and including the cursor."""
        row = self.row
        if row is None:
            return {}
        window = self.budget.window_of(row.at)
        idx, sums = self._spend.get(window, ([], []))
        k = bisect_right(idx, self.cursor)
        announced = self._announced.get(window)
        return {
            "window": window,
            "spent_micros": sums[k - 1] if k else 0,
            "calls": k,
            "allowance_micros": self.budget.policy.allowance_micros,
            "exhausted": announced is not None and announced <= self.cursor,
        }

    def schedule(self) -> ScheduleState | None:
        """For a schedule row (or an occurrence's admission): its schedule as of the cursor."""
        sid = schedule_of(self.row)
        if sid is None:
            return None
        fold = self._sched.at(bisect_right(self._sched_idx, self.cursor))
        return fold.schedules.get(sid)


def schedule_of(row: Row | None) -> str | None:
    """The schedule a row is about, if any."""
    if row is None:
        return None
    if row.kind.startswith("schedule."):
        return row.key
    if row.kind == kinds.WORKFLOW_ADMITTED:
        parsed = parse_ask(str(row.body.get("ask", "")))
        return parsed[0] if parsed else None
    return None


def _toggle(marks: set[str], value: str, what: str) -> str:
    if value in marks:
        marks.discard(value)
        return f"breakpoint on {what} {value} cleared"
    marks.add(value)
    return f"breakpoint on {what} {value} set"
