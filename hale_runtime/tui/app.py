"""The debugger app: three panes over a DebugModel, and a genome screen.

Keys call one model method and redraw the panes (`refresh_panes`); nothing
here decides what a step means. Follow mode polls the record for rows
appended since and keeps a cursor on the last row on the last (one stepped
back stays put; `G` goes back to the tail). `s` re-runs the Scheduler
tick behind the cursor row with the language's debug hooks (genome.py) and
opens the GenomeScreen on its trace, where stepping walks the recorded
statements both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Static

from hale_runtime.record import Row
from hale_runtime.tui.model import DebugModel
from hale_runtime.tui.stepping import Stepper, Trace, replay_tick
from hale_runtime.tui.widgets import Detail, LocalsView, SourceView, Timeline, TreeView

FOLLOW_S = 0.5

CSS = """
Screen { layout: vertical; }
#bar { height: 1; background: $primary; color: $text; text-style: bold; }
#status { height: 1; color: $text-muted; }
#panes { height: 1fr; }
.pane { border: round $primary-darken-1; border-title-color: $text; height: 1fr; }
.pane:focus-within { border: round $accent; }
#left { width: 38fr; }
#centre { width: 31fr; }
#right { width: 31fr; }
#source-pane { width: 3fr; }
#locals-pane { width: 2fr; }
HelpScreen, Prompt { align: center middle; }
#help { width: 78; height: 18; border: round $accent; background: $surface; }
#prompt { width: 70; height: 3; border: round $accent; }
"""


def key_text(keys: str) -> str:
    names = {"question_mark": "?", "slash": "/", "escape": "esc", "space": "space"}
    return " ".join(names.get(k, k) for k in keys.split(","))


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "close", show=True)
    ]

    def __init__(self, bindings: Sequence[BindingType], title: str):
        super().__init__()
        self.keys = [b for b in bindings if isinstance(b, Binding)]
        self.title_text = title

    def compose(self) -> ComposeResult:
        cells = [f"{key_text(b.key):>9} {b.tooltip or b.description:<27}" for b in self.keys]
        half = (len(cells) + 1) // 2
        lines = [self.title_text, ""]
        lines += [a + b for a, b in zip(cells[:half], cells[half:] + [""], strict=True)]
        with VerticalScroll(id="help"):
            yield Static("\n".join(lines))

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)


class Prompt(ModalScreen[str | None]):
    """One line of input (search text, filter); Enter answers, Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, label: str, value: str = ""):
        super().__init__()
        self.label, self.value = label, value

    def compose(self) -> ComposeResult:
        field = Input(value=self.value, placeholder=self.label, id="prompt")
        field.border_title = self.label
        yield field

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


GENOME_KEYS: list[BindingType] = [
    Binding("n,space", "step(1)", "step", tooltip="next statement, into calls"),
    Binding("p", "step(-1)", "back", tooltip="previous statement (time travel)"),
    Binding("o", "over", "over", tooltip="next statement here, over calls"),
    Binding("u", "out", "out", tooltip="run until this call returns"),
    Binding("c", "cont(True)", "continue", tooltip="run to the next breakpoint"),
    Binding("C", "cont(False)", "rev continue", show=False, tooltip="back to the last one"),
    Binding("b", "toggle", "break", tooltip="breakpoint on the marked line"),
    Binding("up,k", "line(-1)", "line up", show=False, tooltip="mark the line above"),
    Binding("down,j", "line(1)", "line down", show=False, tooltip="mark the line below"),
    Binding("question_mark", "help", "help", tooltip="this help"),
    Binding("escape,q", "close", "close", tooltip="back to the record"),
]


class GenomeScreen(Screen[None]):
    """Statement by statement through one recorded Scheduler tick (or fn)."""

    BINDINGS: ClassVar[list[BindingType]] = GENOME_KEYS

    def __init__(self, stepper: Stepper):
        super().__init__()
        self.stepper = stepper

    def compose(self) -> ComposeResult:
        yield Static(id="bar")
        with Horizontal(id="panes"):
            with Vertical(id="source-pane", classes="pane") as source:
                source.border_title = "genome"
                yield SourceView(self.stepper, id="source")
            with VerticalScroll(id="locals-pane", classes="pane") as local:
                local.border_title = "frame"
                yield LocalsView(self.stepper, id="locals")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_panes()

    def refresh_panes(self) -> None:
        f = self.stepper.frame
        where = f"{f.path}:{f.line} in {f.fn}" if f else "no statement"
        self.query_one("#bar", Static).update(f" hale debug · genome · {where}")
        self.query_one(SourceView).show()
        self.query_one(LocalsView).show()
        self.query_one("#status", Static).update(self.stepper.message)

    def action_step(self, delta: int) -> None:
        self.stepper.step(delta)
        self._moved()

    def action_over(self) -> None:
        self.stepper.over()
        self._moved()

    def action_out(self) -> None:
        self.stepper.out()
        self._moved()

    def action_cont(self, forward: bool) -> None:
        self.stepper.continue_(forward)
        self._moved()

    def _moved(self) -> None:
        self.query_one(SourceView).cursor_line = 0
        self.refresh_panes()

    def action_line(self, delta: int) -> None:
        view, f = self.query_one(SourceView), self.stepper.frame
        if f is not None:
            lines = len(self.stepper.trace.sources.get(f.path, [])) or 1
            view.cursor_line = max(1, min(lines, (view.cursor_line or f.line) + delta))
            self.refresh_panes()

    def action_toggle(self) -> None:
        view, f = self.query_one(SourceView), self.stepper.frame
        if f is not None:
            self.stepper.toggle(f.path.rsplit("/", 1)[-1], view.cursor_line or f.line)
            self.refresh_panes()

    def action_help(self) -> None:
        title = f"genome stepping: {self.stepper.trace.title}"
        self.app.push_screen(HelpScreen(GENOME_KEYS, title[:76]))

    def action_close(self) -> None:
        self.dismiss(None)


DEBUG_KEYS: list[BindingType] = [
    Binding("down,j", "move(1)", "step", tooltip="the next row"),
    Binding("up,k", "move(-1)", "back", tooltip="back a row (time travel)"),
    Binding("pagedown", "move(20)", "page down", show=False, tooltip="20 rows on"),
    Binding("pageup", "move(-20)", "page up", show=False, tooltip="20 rows back"),
    Binding("home,g", "home", "start", show=False, tooltip="the first row"),
    Binding("end,G", "end", "end", show=False, tooltip="the last row"),
    Binding("n", "task(True)", "task", tooltip="next row of the execution"),
    Binding("N", "task(False)", "prev in task", show=False, tooltip="previous row of it"),
    Binding("x", "failure(True)", "failure", tooltip="next failure"),
    Binding("X", "failure(False)", "prev failure", show=False, tooltip="previous failure"),
    Binding("c", "cont(True)", "continue", tooltip="run to the next breakpoint"),
    Binding("C", "cont(False)", "rev continue", show=False, tooltip="back to the last one"),
    Binding("b", "break_kind", "break kind", show=False, tooltip="break on this row's kind"),
    Binding("B", "break_key", "break key", show=False, tooltip="break on this row's key"),
    Binding("slash", "search", "search", show=False, tooltip="search kind/key/who/body"),
    Binding("r", "again(True)", "search next", show=False, tooltip="next match"),
    Binding("R", "again(False)", "search prev", show=False, tooltip="previous match"),
    Binding("i", "filter", "filter", show=False, tooltip="filter: kind:a.,b key:t1"),
    Binding("t", "select", "select task", show=False, tooltip="centre this row's task"),
    Binding("f", "follow", "follow", show=False, tooltip="tail a running organism"),
    Binding("s", "genome", "genome", tooltip="step the Scheduler tick here"),
    Binding("question_mark", "help", "help", tooltip="this help"),
    Binding("q", "quit", "quit", tooltip="leave"),
]


MAIN_ACTIONS = frozenset(
    b.action.split("(")[0] for b in DEBUG_KEYS if isinstance(b, Binding) and b.action != "quit"
)


class DebugApp(App[None]):
    """`hale dna debug`: the record's timeline, the tree, the detail."""

    CSS = CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = DEBUG_KEYS
    TITLE = "hale debug"

    def __init__(
        self,
        model: DebugModel,
        source: Callable[[int], list[Row]] | None = None,
        scheduler: Callable[[], Any] | None = None,
        hl_breaks: Sequence[tuple[str, int]] = (),
        follow: bool = False,
        trace: Trace | None = None,
    ):
        super().__init__()
        self.model, self.source = model, source
        self.scheduler_factory, self._scheduler = scheduler, None
        self.hl_breaks: set[tuple[str, int]] = set(hl_breaks)
        self.following = False
        self._follow_at_start = follow
        self._timer: Any = None
        self._trace_at_start = trace

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The record's keys act (and show in the footer) on the main screen only."""
        return self.screen is self.screen_stack[0] or action not in MAIN_ACTIONS

    def compose(self) -> ComposeResult:
        yield Static(id="bar")
        with Horizontal(id="panes"):
            with Vertical(id="left", classes="pane") as left:
                left.border_title = "record"
                yield Timeline(self.model, id="timeline")
            with Vertical(id="centre", classes="pane") as centre:
                centre.border_title = "execution"
                yield TreeView(self.model, id="tree")
            with VerticalScroll(id="right", classes="pane") as right:
                right.border_title = "row"
                yield Detail(self.model, id="detail")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        if self._follow_at_start:
            self.action_follow()
        self.refresh_panes()
        if self._trace_at_start is not None:  # `--fn`: open on the fn's trace
            self.step_trace(self._trace_at_start)

    def refresh_panes(self) -> None:
        m = self.model
        task = m.tree_task or "none"
        mode = " · following" if self.following else ""
        shown = f" · filter {m.filters.text()}" if m.filters.active else ""
        where = f"{m.pos + 1}/{len(m.visible)}"
        self.query_one("#bar", Static).update(
            f" hale debug · row {where} · task {task}{shown}{mode}", layout=False
        )  # the bar and the status are one line high whatever they say: no layout
        self.query_one(Timeline).show()
        self.query_one(TreeView).show()
        self.query_one(Detail).show()
        self.query_one("#status", Static).update(m.message, layout=False)

    # ---- stepping --------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self.model.move(delta)
        self.refresh_panes()

    def action_home(self) -> None:
        self.model.home()
        self.refresh_panes()

    def action_end(self) -> None:
        self.model.end()
        self.refresh_panes()

    def action_task(self, forward: bool) -> None:
        self.model.next_in_task(forward)
        self.refresh_panes()

    def action_failure(self, forward: bool) -> None:
        self.model.next_failure(forward)
        self.refresh_panes()

    def action_cont(self, forward: bool) -> None:
        self.model.continue_(forward)
        self.refresh_panes()

    def action_break_kind(self) -> None:
        self.model.toggle_break_kind()
        self.refresh_panes()

    def action_break_key(self) -> None:
        self.model.toggle_break_key()
        self.refresh_panes()

    def action_select(self) -> None:
        self.model.select_task()
        self.refresh_panes()

    # ---- search and filter -----------------------------------------------------------

    def action_search(self) -> None:
        def found(text: str | None) -> None:
            if text:
                self.model.search(text)
            self.refresh_panes()

        self.push_screen(Prompt("search kind, key, who, body", self.model.search_text), found)

    def action_again(self, forward: bool) -> None:
        self.model.search(None, forward)
        self.refresh_panes()

    def action_filter(self) -> None:
        def chosen(text: str | None) -> None:
            if text is not None:
                self.model.set_filter(text)
            self.refresh_panes()

        label = "filter: kind:a.,b.c key:t1 (empty: all)"
        self.push_screen(Prompt(label, self.model.filters.text()), chosen)

    # ---- follow ------------------------------------------------------------------------

    def action_follow(self) -> None:
        if self.source is None:
            self.model.message = "follow needs a record to read"
        elif self.following:
            self.following = False
            if self._timer is not None:
                self._timer.stop()
        else:
            self.following = True
            self._timer = self.set_interval(FOLLOW_S, self.poll)
            self.model.end()
            self.poll()
        self.refresh_panes()

    def poll(self) -> int:
        """Take rows appended since; while following, a cursor on the last row
        moves on to the new last one (one stepped back stays where it is)."""
        if self.source is None:
            return 0
        m = self.model
        at_end = m.pos == len(m.visible) - 1
        added = m.extend(self.source(len(m.rows)))
        if added:
            if self.following and at_end:
                m.end()
            self.refresh_panes()
        return added

    # ---- genome ------------------------------------------------------------------------

    def action_genome(self) -> None:
        m = self.model
        if m.row is None or self.scheduler_factory is None:
            m.message = "no genome to step here"
            self.refresh_panes()
            return
        from hale_lang.diagnostics import HaleError

        try:
            if self._scheduler is None:
                self._scheduler = self.scheduler_factory()
            trace = replay_tick(m.rows, m.cursor, self._scheduler)
        except HaleError as exc:
            m.message = f"the Scheduler does not build: {str(exc).splitlines()[0]}"
            self.refresh_panes()
            return
        self.step_trace(trace)

    def step_trace(self, trace: Trace) -> None:
        """Open the genome screen on `trace`, run to the first breakpoint if any."""
        stepper = Stepper(trace, sorted(self.hl_breaks))
        if stepper.breakpoints:
            stepper.continue_()

        def closed(_: None) -> None:
            self.hl_breaks = set(stepper.breakpoints)

        self.push_screen(GenomeScreen(stepper), closed)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(DEBUG_KEYS, "hale dna debug: the record, stepped"))
