"""`hale dna debug [TASK]`: the Textual debugger over this clone's record.

Opens the record of the project it runs in (no node needed), builds the
debugger's model from its rows and runs the app; the Scheduler for genome
stepping is built only when `s` is first pressed. Follow mode re-reads the
record for rows appended since.
"""

from __future__ import annotations

import gc

import click

from hale_runtime.cli.common import fail
from hale_runtime.project import NotAProject, find_root


@click.command("debug")
@click.argument("task", required=False)
@click.option("--follow", is_flag=True, help="Tail the record as a running organism writes it.")
@click.option("--break-kind", "kinds", multiple=True, help="Stop `c` on rows of this kind.")
@click.option("--break-key", "keys", multiple=True, help="Stop `c` on rows whose key starts so.")
@click.option("--hl-break", "hl", multiple=True, help="A genome breakpoint: scheduler.hl:230.")
@click.option("--budget-window", type=click.Choice(["day", "week", "none"]), default="day")
@click.option("--allowance", type=int, default=0, help="The budget's allowance in µ$ (0: none).")
def debug(task: str | None, follow: bool, kinds: tuple[str, ...], keys: tuple[str, ...],
          hl: tuple[str, ...], budget_window: str, allowance: int) -> None:  # fmt: skip
    """Step through the record's executions and the Scheduler's code behind them."""
    from hale_runtime.engine.budget import BudgetPolicy
    from hale_runtime.record import Record, RecordError
    from hale_runtime.tui.app import DebugApp
    from hale_runtime.tui.genome import load_scheduler, parse_breakpoint
    from hale_runtime.tui.model import DebugModel

    try:
        root = find_root()
        record = Record.open(root)
        rows = record.rows()
        breaks = [parse_breakpoint(b) for b in hl]
    except (NotAProject, RecordError, ValueError) as exc:
        fail(str(exc))
    model = DebugModel(rows, task, BudgetPolicy(budget_window, allowance))
    if task and not model.has_task(task):
        fail(f"no task {task} in the record")
    gc.freeze()  # the rows stay for the session: no collection walks them again
    model.break_kinds.update(kinds)
    model.break_keys.update(keys)
    app = DebugApp(
        model,
        source=lambda since: record.rows(since=since),
        scheduler=lambda: load_scheduler(root),
        hl_breaks=breaks,
        follow=follow,
    )
    app.run()
