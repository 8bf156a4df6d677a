"""`hale dna debug [TASK]`: the Textual debugger over this clone's record.

Opens the record of the project it runs in (no node needed), builds the
debugger's model from its rows (with TASK, the rows of its execution tree,
read by key through the record's index) and runs the app; the Scheduler for genome
stepping is built only when `s` is first pressed. Follow mode re-reads the
record for rows appended since. `--fn file.hl:fn` (with `--arg` JSON values)
calls any fn of the genome with the debug hooks on and opens on its steps.
"""

from __future__ import annotations

import gc

import click

from hale_runtime.cli.common import EXIT_USAGE, fail
from hale_runtime.project import find_root


@click.command("debug")
@click.argument("task", required=False)
@click.option("--follow", is_flag=True, help="Tail the record as a running organism writes it.")
@click.option("--break-kind", "kinds", multiple=True, help="Stop `c` on rows of this kind.")
@click.option("--break-key", "keys", multiple=True, help="Stop `c` on rows whose key starts so.")
@click.option("--hl-break", "hl", multiple=True, help="A genome breakpoint: scheduler.hl:230.")
@click.option("--fn", "target", help="Step a genome fn first: dna/org/models.hl:org_budget.")
@click.option(
    "--arg", "args", multiple=True, help="An argument of --fn as JSON (repeat, in order)."
)
@click.option(
    "--budget-window",
    type=click.Choice(["day", "week", "none"]),
    help="The budget's window (default: the genome's org_budget()).",
)
@click.option("--allowance", type=int, help="The budget's allowance in µ$ (default: the genome's).")
def debug(task: str | None, follow: bool, kinds: tuple[str, ...], keys: tuple[str, ...],
          hl: tuple[str, ...], target: str | None, args: tuple[str, ...],
          budget_window: str | None, allowance: int | None) -> None:  # fmt: skip
    """Step through the record's executions and the Scheduler's code behind them."""
    missing = terminal_missing()
    if missing:
        fail(f"debug draws on a terminal, and {missing}; run it in one (`hale dna history` reads the record as text)", EXIT_USAGE)  # fmt: skip
    from hale_runtime.extras import need

    need("tui")  # one line naming the extra when it is not installed
    from hale_lang.diagnostics import HaleError
    from hale_runtime.record import Record
    from hale_runtime.tui.app import DebugApp
    from hale_runtime.tui.model import DebugModel
    from hale_runtime.tui.stepping import load_scheduler, parse_breakpoint, record_fn

    try:
        root = find_root()
        record = Record.open(root)
        rows, source = opened_rows(record, task)
        breaks = [parse_breakpoint(b) for b in hl]
        trace = record_fn(root, target, args) if target else None
    except ValueError as exc:
        fail(str(exc))
    except HaleError as exc:
        fail(f"--fn {target}: {str(exc).splitlines()[0]}")
    model = DebugModel(rows, task, _budget(root, budget_window, allowance))
    if task and not model.has_task(task):
        fail(f"no task {task} in the record")
    gc.freeze()  # the rows stay for the session: no collection walks them again
    model.break_kinds.update(kinds)
    model.break_keys.update(keys)
    app = DebugApp(
        model,
        source=source,
        scheduler=lambda: load_scheduler(root),
        hl_breaks=breaks,
        follow=follow,
        trace=trace,
    )
    app.run()


def terminal_missing() -> str:
    """What of a terminal the debugger lacks ("" when stdin and stdout are one)."""
    import sys

    if not sys.stdin.isatty():
        return "standard input is not one"
    if not sys.stdout.isatty():
        return "standard output is not one"
    return ""


def opened_rows(record, task: str | None):
    """(the rows the debugger opens on, how follow reads what comes after them).

    With a task, its execution tree's rows, read by key through the record's
    index, so opening a task costs the same in a record of any age; without
    one, the whole record. Follow reads on from the record's end either way."""
    if not task:
        return record.rows(), lambda since: record.rows(since=since)
    from hale_runtime.engine.ids import root_of

    rows = record.under(root_of(task), "/.")
    end = record.cursor()
    return rows, lambda since: record.rows(since=end + since - len(rows))


def _budget(root, window: str | None, allowance: int | None):
    """The policy the budget pane folds with: the options where given, the
    rest from the genome's org_budget() (unmetered when it does not build)."""
    from hale_lang.diagnostics import HaleError
    from hale_runtime.engine.budget import BudgetPolicy, policy_from_genome

    try:
        genome = policy_from_genome(root)
    except (HaleError, ValueError, OSError):
        genome = BudgetPolicy("day", 0)
    return BudgetPolicy(
        window or genome.window, genome.allowance_micros if allowance is None else allowance
    )
