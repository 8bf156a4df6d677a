"""The debugger's panes: each draws a model's content, and only what fits.

Every pane is a Static redrawn from the model after a key, with no layout
pass unless its height changes (a layout costs the screen a second frame a
key: the timeline and the tree fill their panes whatever they hold; the row
fills its pane at least, and lays out again only when it is taller): the timeline
renders just the rows in its window (the window slides to keep the cursor
in it, so a 100,000-row record costs what 20 rows cost), the tree and the
detail render as of the cursor, the source view a window of the `.hl` file
around the current line, coloured by Hale's Pygments lexer (each file once,
with the terminal's own ANSI colours). Styles come from component classes in CSS, using
the theme's variables; every state also has a glyph or a marker, so the
panes read in monochrome.
"""

from __future__ import annotations

import json
import time
from typing import Any, ClassVar

from rich.text import Text
from textual.widgets import Static

from hale_runtime.tui.model import DebugModel, row_mark
from hale_runtime.tui.stepping import Stepper
from hale_runtime.tui.tree import CASE, FENCED, GLYPH, TreeLine

# the record pane's mark of a row by what it is about (model.row_mark)
MARKS = {"": " ", "failure": "✗", "case": GLYPH[CASE], "fence": GLYPH[FENCED],
         "reading": "≈", "concern": "‼"}  # fmt: skip

MAX_BODY = 1200


def clock_text(at: int) -> str:
    """A row's time as `MM-DD HH:MM:SS` (UTC)."""
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(at / 1000))


class Timeline(Static):
    """The record as rows: a marker column, seq, kind, key, time, who (a narrow
    pane cuts the line: the row pane repeats the whole of it)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "timeline--cursor", "timeline--failure", "timeline--break", "timeline--case",
        "timeline--fence", "timeline--reading", "timeline--concern",
    }  # fmt: skip
    DEFAULT_CSS = """
    Timeline { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    Timeline .timeline--cursor { text-style: reverse bold; }
    Timeline .timeline--failure { color: $error; }
    Timeline .timeline--case { color: $accent; text-style: bold; }
    Timeline .timeline--fence { color: $warning; text-style: italic; }
    Timeline .timeline--reading { color: $secondary; }
    Timeline .timeline--concern { color: $warning; text-style: bold; }
    Timeline .timeline--break { color: $warning; text-style: bold; }
    """

    def __init__(self, model: DebugModel, **kwargs: Any):
        super().__init__(**kwargs)
        self.model = model
        self.top = 0

    def show(self) -> None:
        m, height = self.model, self.size.height
        if height == 0:
            return  # not laid out yet: on_resize draws it
        if not self.top <= m.pos < self.top + height:
            self.top = m.pos - height // 2  # re-centred: the rows before show the past
        self.top = max(0, min(self.top, max(len(m.visible) - height, 0)))
        cursor = self.get_component_rich_style("timeline--cursor")
        mark = self.get_component_rich_style("timeline--break")
        styles = {k: self.get_component_rich_style(f"timeline--{k}") for k in MARKS if k}
        text = Text(no_wrap=True, overflow="ellipsis")
        digits = len(str(m.rows[-1].seq)) if m.rows else 1
        for p in range(self.top, min(self.top + height, len(m.visible))):
            row = m.rows[m.visible[p]]
            bp, about = m.on_breakpoint(row), row_mark(row)
            flag = ("●" if bp else " ") + MARKS[about]
            line = f"{flag} {row.seq:>{digits}} {row.kind} {row.key} {clock_text(row.at)} {row.who}"
            style = cursor if p == m.pos else (mark if bp else styles.get(about, ""))
            text.append(line[: max(self.size.width, 1)], style=style)
            text.append("\n")
        if not m.visible:
            text.append("no rows" + (" match the filter" if m.filters.active else ""))
        self.update(text, layout=False)  # a 1fr pane: its size is not its content's

    def on_resize(self) -> None:
        self.show()


class TreeView(Static):
    """The execution tree of the selected task, as of the cursor."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tree--pending", "tree--open", "tree--succeeded", "tree--failed", "tree--fenced",
        "tree--case", "tree--here",
    }  # fmt: skip
    DEFAULT_CSS = """
    TreeView { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    TreeView .tree--pending { color: $text-muted; }
    TreeView .tree--open { color: $accent; }
    TreeView .tree--succeeded { color: $success; }
    TreeView .tree--failed { color: $error; text-style: bold; }
    TreeView .tree--fenced { color: $warning; text-style: italic; }
    TreeView .tree--case { color: $accent; text-style: bold; }
    TreeView .tree--here { text-style: reverse; }
    """

    def __init__(self, model: DebugModel, **kwargs: Any):
        super().__init__(**kwargs)
        self.model = model

    def show(self) -> None:
        m, height = self.model, self.size.height
        lines = m.tree()
        if not lines:
            self.update("no execution here: t on an execution's row selects it", layout=False)
            return
        if height == 0:
            return  # not laid out yet: on_resize draws it
        here = m.row.key if m.row else ""
        at = next((i for i, line in enumerate(lines) if line.id == here), 0)
        top = max(0, min(at - height // 3, len(lines) - height))
        shown = lines[top : top + height]
        text = Text(no_wrap=True, overflow="ellipsis")
        if top:
            text.append(f"↑ {top} more\n", style="dim")
            shown = shown[1:]
        cut = len(lines) - top - len(shown) - (1 if top else 0)
        if cut > 0 and len(shown) == height - (1 if top else 0):
            shown, cut = shown[:-1], cut + 1
        for line in shown:
            self._line(text, line, line.id == here)
        if cut > 0:
            text.append(f"↓ {cut} more", style="dim")
        self.update(text, layout=False)  # a 1fr pane, as the timeline

    def _line(self, text: Text, line: TreeLine, here: bool) -> None:
        style = self.get_component_rich_style(f"tree--{line.state}")
        if here:  # reverse video too: the ◀ at the end is cut on a narrow pane
            style += self.get_component_rich_style("tree--here")
        text.append("  " * line.depth)
        text.append(f"{GLYPH[line.state]} {line.label} {line.state}", style=style)
        if line.note:
            text.append(f"  {line.note}", style="dim")
        if here:
            text.append(" ◀", style=self.get_component_rich_style("tree--here"))
        text.append("\n")

    def on_resize(self) -> None:
        self.show()


def body_text(body: dict[str, Any]) -> str:
    """One `name: value` line a member, values as compact JSON (a plan elided)."""
    lines = []
    for k in sorted(body):
        v = body[k]
        value = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
        lines.append(f"{k}: {'…' if k == 'plan' else value}")
    text = "\n".join(lines)
    return text if len(text) <= MAX_BODY else text[:MAX_BODY] + "…"


class Detail(Static):
    """The cursor row: its body, its performer, the budget, its schedule. At least
    as tall as its pane, so a shorter row than the last needs no layout pass."""

    DEFAULT_CSS = "Detail { min-height: 100%; }"

    def __init__(self, model: DebugModel, **kwargs: Any):
        super().__init__(**kwargs)
        self.model = model

    def show(self) -> None:
        m = self.model
        row = m.row
        if row is None:
            self.update("")
            return
        text = Text(no_wrap=False)
        text.append(f"{row.seq} {row.kind}\n", style="bold")
        text.append(f"{row.key}\n{row.who}\n{clock_text(row.at)} UTC\n")
        text.append(body_text(row.body) + "\n", style="italic")
        performer = m.performer()
        if performer and row.body.get("performer") != performer:
            text.append("performer ", style="bold")
            text.append(f"{performer}\n")
        text.append("budget ", style="bold")
        text.append(budget_text(m.budget_as_of()) + "\n")
        s = m.schedule()
        if s is not None:
            text.append("schedule ", style="bold")
            text.append(schedule_text(s) + "\n")
        for err in m.fold_errors[-3:]:
            text.append(f"{err}\n", style="italic")
        self.update(text, layout=False)
        laid, pane = self.content_size, self.parent.content_size if self.parent else None
        height = self.get_content_height(laid, laid, laid.width) if laid.width else -1
        if height != laid.height and not (pane and height < laid.height <= pane.height):
            self.refresh(layout=True)  # taller than the pane, or it was: the pane lays out again


def budget_text(b: dict[str, Any]) -> str:
    if not b:
        return ""
    allowance = b["allowance_micros"]
    of = f"/{allowance}" if allowance else ""
    spent = f"{b['window']}: {b['spent_micros']}{of} µ$, {b['calls']} call(s)"
    return spent + (", EXHAUSTED" if b["exhausted"] else "")


def schedule_text(s: Any) -> str:
    t = s.terms
    when = f"cron {t.cron}" if t.cron else f"every {t.every_ms}ms"
    state = "paused" if s.paused else "live"
    last = f"{s.last_task} ({'open' if s.last_open else 'settled'})" if s.last_task else "none"
    return (
        f"{t.id} {state}: {t.definition} {when} by {t.convener}; floor {clock_text(s.floor)}; "
        f"occurred {s.occurred}, skipped {s.skipped}, missed {s.missed}; last {last}"
    )


class SourceView(Static):
    """A `.hl` file around the current line: ▶ the line about to run, ● breakpoints."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"source--current", "source--cursor", "source--break"}
    DEFAULT_CSS = """
    SourceView { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    SourceView .source--current { text-style: reverse bold; }
    SourceView .source--cursor { text-style: underline; }
    SourceView .source--break { color: $error; text-style: bold; }
    """

    def __init__(self, stepper: Stepper, **kwargs: Any):
        super().__init__(**kwargs)
        self.stepper = stepper
        self.cursor_line = 0  # the line `b` toggles; follows the current line
        self._coloured: dict[str, list[Text]] = {}

    def coloured(self, path: str) -> list[Text]:
        """The file's lines, highlighted once per file."""
        lines = self._coloured.get(path)
        if lines is None:
            from rich.syntax import Syntax

            from hale_lang.highlight import HaleLexer

            code = "\n".join(self.stepper.trace.sources.get(path, []))
            whole = Syntax(code, HaleLexer(), theme="ansi_dark").highlight(code)
            lines = self._coloured[path] = whole.split("\n", allow_blank=True) if code else []
        return lines

    def show(self) -> None:
        st, f = self.stepper, self.stepper.frame
        if f is None:
            self.update(f"{st.trace.what} ran no statement")
            return
        lines = self.coloured(f.path)
        height = max(self.size.height, 1)
        focus = self.cursor_line or f.line
        top = max(0, min(focus - height // 2, len(lines) - height))
        text = Text(no_wrap=True, overflow="ellipsis")
        for n in range(top + 1, min(top + height, len(lines)) + 1):
            bp = any(n == ln and f.path.endswith(p) for p, ln in st.breakpoints)
            here = n == f.line
            mark = ("▶" if here else " ") + ("●" if bp else " ")
            style = "source--current" if here else ("source--break" if bp else "")
            if n == self.cursor_line and not here:
                style = "source--cursor"
            line = Text(f"{mark}{n:>4} ").append_text(lines[n - 1])
            if style:
                line.stylize(self.get_component_rich_style(style))
            line.truncate(max(self.size.width, 1))
            text.append_text(line)
            text.append("\n")
        self.update(text)

    def on_resize(self) -> None:
        self.show()


class LocalsView(Static):
    """Where the step is (the call stack), the frame's locals, what the tick decided."""

    def __init__(self, stepper: Stepper, **kwargs: Any):
        super().__init__(**kwargs)
        self.stepper = stepper

    def show(self) -> None:
        st, f = self.stepper, self.stepper.frame
        tr = st.trace
        text = Text()
        text.append(f"{tr.title}\n", style="bold")
        if f is not None:
            where = f"step {st.pos + 1}/{len(tr.frames)} {f.path.rsplit('/', 1)[-1]}:{f.line}"
            text.append(where + "\n")
            text.append("stack " + " > ".join(f.stack) + "\n")
            if f.event == "return":
                text.append(f"{f.fn} returns {f.value}\n", style="bold")
            text.append("locals\n", style="bold")
            for name, value in f.locals:
                text.append(f" {name} = {value}\n")
        if tr.error:
            text.append(f"{tr.error}\n", style="italic")
        if st.pos == len(tr.frames) - 1 or not tr.frames:
            text.append(f"{tr.what} returned {tr.result}\n", style="bold")
            for kind, key, body in tr.decided:
                text.append(f" {kind} {key} {json.dumps(body, sort_keys=True)}\n")
        self.update(text)
