"""The budget: one allowance a window, accounted from `model.called` rows.

A window is a UTC day, an ISO week (from Monday 00:00 UTC), or `none` (one
window for the record's lifetime). The Budget folds every `model.called` row
into the window its time falls in (`micros` from its body), and every
`budget.exhausted` row into the set of windows already announced, so it is
rebuilt from the record alone. Calls made but not yet in the record are
held as pending, keyed by their call id, and dropped when their row is
folded, so nothing is counted twice.

`admit(ceiling, now)` is the one gate: the smaller of the ceiling and what
the window has left, or a refusal whose text names what was spent. An
allowance of 0 is unmetered: everything asked is admitted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hale_runtime import errors
from hale_runtime.performers.base import Admission

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
MONDAY_OFFSET_MS = 3 * DAY_MS  # 1970-01-01 was a Thursday; Monday 1969-12-29 starts week 0
WINDOWS = ("day", "week", "none")
WINDOW_WORDS = {"day": "this day", "week": "this week", "none": "in all"}


@dataclass(frozen=True)
class BudgetPolicy:
    """`org_budget()`: the window and its allowance in micro-dollars (0: unmetered)."""

    window: str = "day"
    allowance_micros: int = 0

    def __post_init__(self) -> None:
        if self.window not in WINDOWS:
            raise ValueError(f"a budget window is day, week or none, not {self.window!r}")
        if self.allowance_micros < 0:
            raise ValueError("a budget allowance is 0 (unmetered) or more micro-dollars")

    @classmethod
    def from_object(cls, value: Any) -> BudgetPolicy:
        """From a plain object or mapping with `window` and `allowance_micros`."""
        get = value.get if isinstance(value, dict) else lambda k: getattr(value, k)
        return cls(str(get("window")), int(get("allowance_micros")))


@dataclass
class _Window:
    spent: int = 0
    calls: int = 0


@dataclass
class Budget:
    policy: BudgetPolicy
    windows: dict[str, _Window] = field(default_factory=dict)
    announced: set[str] = field(default_factory=set)  # windows with a budget.exhausted row
    pending: dict[str, tuple[str, int]] = field(default_factory=dict)  # call id -> (window, µ$)

    def window_of(self, at_ms: int) -> str:
        """The label of the window `at_ms` falls in."""
        if self.policy.window == "none":
            return "none"
        if self.policy.window == "day":
            start = at_ms - at_ms % DAY_MS
        else:
            start = at_ms - (at_ms + MONDAY_OFFSET_MS) % WEEK_MS
        day = time.strftime("%Y-%m-%d", time.gmtime(start / 1000))
        return f"{self.policy.window}/{day}"

    # ---- the fold --------------------------------------------------------------

    def account(self, at_ms: int, micros: int, call: str = "") -> None:
        """Fold one `model.called` row (its time, its price, its call id)."""
        w = self.windows.setdefault(self.window_of(at_ms), _Window())
        w.spent += micros
        w.calls += 1
        if call:
            self.pending.pop(call, None)

    def note(self, at_ms: int, micros: int, call: str) -> None:
        """A call made whose row is not yet in the record."""
        self.pending[call] = (self.window_of(at_ms), micros)

    def announce(self, window: str) -> None:
        """Fold one `budget.exhausted` row."""
        self.announced.add(window)

    def snapshot(self) -> dict[str, Any]:
        """The windows and the announcements as plain data (pending calls are no fold's)."""
        return {
            "windows": {label: (w.spent, w.calls) for label, w in self.windows.items()},
            "announced": sorted(self.announced),
        }

    def restore(self, data: dict[str, Any]) -> None:
        self.windows = {label: _Window(*w) for label, w in data["windows"].items()}
        self.announced = set(data["announced"])

    # ---- the gate --------------------------------------------------------------

    def spent(self, window: str) -> tuple[int, int]:
        """(micro-dollars, calls) in `window`, pending calls included."""
        w = self.windows.get(window, _Window())
        extra = [m for win, m in self.pending.values() if win == window]
        return w.spent + sum(extra), w.calls + len(extra)

    def admit(self, ceiling_micros: int, now_ms: int) -> Admission:
        """The gate: min(ceiling, what the window has left), or a refusal."""
        window = self.window_of(now_ms)
        allowance = self.policy.allowance_micros
        if allowance == 0:
            return Admission(ceiling_micros, "", window)
        spent, calls = self.spent(window)
        left = allowance - spent
        if left <= 0:
            return Admission(0, self.refusal(window), window)
        return Admission(min(ceiling_micros, left), "", window)

    def refusal(self, window: str) -> str:
        spent, calls = self.spent(window)
        words = WINDOW_WORDS[self.policy.window]
        return (
            f"refused: budget exhausted (spent {spent} of {self.policy.allowance_micros} "
            f"micro-dollars {words} in {calls} call(s))"
        )

    def exhausted(self, now_ms: int) -> str | None:
        """The current window's label when it is spent and not yet announced."""
        allowance = self.policy.allowance_micros
        window = self.window_of(now_ms)
        if allowance == 0 or window in self.announced:
            return None
        return window if self.spent(window)[0] >= allowance else None

    def exhausted_body(self, window: str) -> dict[str, Any]:
        spent, calls = self.spent(window)
        return {
            "window": window,
            "spent_micros": spent,
            "allowance_micros": self.policy.allowance_micros,
            "calls": calls,
        }


MODELS = "dna/org/models.hl"


class BudgetRefused(errors.Refused, ValueError):
    """`org_budget()` returned a policy the budget cannot keep (a window
    other than day, week or none): the host refuses to bind it. `text` is
    the rendered diagnostic (E0504), at the `window:` the genome wrote."""

    def __init__(self, reason: str, text: str, diagnostic: object = None):
        super().__init__(reason)
        self.text = text
        self.diagnostic = diagnostic  # the same, as a Diagnostic (catalog/admission.py)


def policy_from_genome(root: Path | str) -> BudgetPolicy:
    """The genome's `org_budget()` (dna/org/models.hl), run as Hale.

    Raises HaleError when the file does not build or run, and BudgetRefused
    when the policy it returns is not one the budget can keep."""
    from hale_lang.build import build
    from hale_lang.stdlib.prelude import to_plain

    program = build(root, [MODELS], bindings={})
    try:
        return BudgetPolicy.from_object(to_plain(program.call(MODELS, "org_budget")))
    except ValueError as e:
        diag, text = _refusal_diagnostic(Path(root), str(e))
        raise BudgetRefused(str(e), _render(diag, text), diag) from None


def budget_refusal(folder: Path) -> str | None:
    """The rendered refusal of a budget policy the host cannot keep, if any."""
    from hale_lang.diagnostics import HaleError

    if not (folder / MODELS).is_file():
        return None
    try:
        policy_from_genome(folder)
    except BudgetRefused as refused:
        return refused.text
    except HaleError:  # its faults are the organization's to report when it runs
        return None
    return None


def _render(diag, text: str) -> str:
    from hale_lang.diagnostics import SourceMap, render_all

    return render_all([diag], SourceMap({MODELS: text}))


def _refusal_diagnostic(root: Path, reason: str):
    """The binding refusal as a diagnostic, pointing at the `window:` (or
    `allowance_micros:`) field `org_budget()` writes, else at the fn; and
    the text of the file it points into."""
    from hale_lang import nodes as n
    from hale_lang.cache import ParseCache
    from hale_lang.diagnostics import Diagnostic

    text = (root / MODELS).read_text(encoding="utf-8")
    module = ParseCache.default().parse(text, MODELS)
    fn = next((i for i in module.items if isinstance(i, n.FnDecl) and i.name == "org_budget"), None)
    field = "allowance_micros" if "allowance" in reason else "window"
    span = _field_value(fn.body, field) if fn is not None else None
    if span is None and fn is not None:
        span = fn.name_span
    help = 'a budget window is "day", "week" or "none", and an allowance 0 or more'
    diag = Diagnostic("E0504", f"the host refuses this budget: {reason}", span, help)
    return diag, text


def _field_value(body, field: str):
    """The span of the first `field: …` in a struct literal under `body`."""
    from hale_lang import nodes as n

    stack: list = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, n.StructLit):
            for f in node.fields:
                if f.name == field:
                    return f.value.span
        if isinstance(node, list | tuple):
            stack.extend(reversed(node))
        elif hasattr(type(node), "__dataclass_fields__"):
            stack.extend(
                getattr(node, k)
                for k in reversed(type(node).__dataclass_fields__)
                if k not in ("span", "ty", "ref", "name_span", "method_span")
            )
    return None
