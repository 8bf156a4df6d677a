"""`hale dna schedule` (the listing), `declare`, `pause` and `resume`.

The listing reads the record alone. `declare` is a request the
organization answers (hale_runtime/schedules/ask.py), once the verb has
checked what it can itself (`terms.shape_refusal`: the id, one cadence, an
interval the tick can keep, a cron that occurs, inputs that are a JSON
object), writing nothing when that refuses; `pause` and `resume` are rows
in your name, read by the organism at its next tick. Exit codes: 0 ok, 1
refused or unanswered, 2 usage.
"""

from __future__ import annotations

from pathlib import Path

import click

from hale_runtime.cli.common import EXIT_USAGE, fail, json_option, offline_option
from hale_runtime.cli.organism import (
    answer_wait_s,
    exit_unless_landed,
    fetch_unless_offline,
    organism_running,
    sync_quietly,
    unlanded,
    wait_for,
)
from hale_runtime.cli.shapes import emit


def _root() -> Path:
    from hale_runtime.project import find_root

    return find_root()


def _record(root: Path):
    from hale_runtime.record import Record

    return Record.open(root)


@click.group("schedule", invoke_without_command=True)
@offline_option
@json_option
@click.pass_context
def schedule(ctx: click.Context, offline: bool, as_json: bool) -> None:
    """List the schedules the record holds; declare, pause or resume one."""
    if ctx.invoked_subcommand is not None:
        return
    from hale_runtime.schedules.listing import schedule_json, schedule_lines

    record = _record(_root())
    fetch_unless_offline(record, offline)
    if as_json:
        emit(schedule_json(record))
        return
    for line in schedule_lines(record):
        click.echo(line)


@schedule.command("declare")
@click.argument("id")
@click.option("--every", "every_ms", type=click.IntRange(min=1), help="interval in milliseconds")
@click.option("--cron", "cron", default="", help="a five-field cron, in UTC")
@click.option("--definition", required=True, help="a definition in the catalog")
@click.option("--convener", required=True, help="the position that convenes it")
@click.option("--args", "args", default="{}", help="the inputs, a JSON object")
def declare(
    id: str, every_ms: int | None, cron: str, definition: str, convener: str, args: str
) -> None:
    """Ask the organization to declare schedule ID."""
    from hale_runtime.record.errors import RowRefused
    from hale_runtime.schedules import ask
    from hale_runtime.schedules.terms import Terms, shape_refusal

    if (every_ms is None) == (not cron):
        fail("give exactly one of --every and --cron", EXIT_USAGE)
    root = _root()
    definition = _definition(root, definition)
    record = _record(root)
    position = convener if ":" in convener else f"position:{convener}"
    terms = Terms(id, every_ms or 0, cron, definition, args, position)
    why = shape_refusal(terms, record.clock()) or _node_refusal(root, terms)
    if why:  # what the verb can tell itself: nothing is written
        click.echo(f"schedule declare: refused: {why}")
        raise SystemExit(1)
    sync_quietly(record)  # judged against the chain as the remote has it
    try:
        row = ask.request(record, terms)
    except RowRefused as refused:  # not the Board's nor the convener's holder, by key
        click.echo(f"schedule declare: {refused}")
        raise SystemExit(1) from None
    not_landed = unlanded(record)
    if not_landed or not organism_running(root):
        click.echo(
            f"schedule {id} asked of the organization in the record by {record.who} "
            f"({row.key}); it declares it when it hears it"
        )
        if not_landed:
            fail(not_landed)
        return
    _await(record, terms, row.key)


def _definition(root: Path, given: str) -> str:
    """The definition id a schedule names, from `id` or `id@rev` as
    `hale dna definitions` prints it (a schedule convenes the newest revision);
    a definition the catalog lacks, or an old revision, is refused here, one
    line, exit 1, before anything is written. A genome that does not build is
    left for the organization to judge."""
    from hale_runtime.catalog.load import GenomeError, load_document

    try:
        doc = load_document(root)
    except GenomeError:
        return given
    id, at, rev = given.partition("@")
    found = {d["id"]: d for d in doc["definitions"]}
    d = found.get(id)
    if d is None:
        fail(
            f"schedule declare: refused: the catalog has no definition {id} "
            "(`hale dna definitions` lists them); nothing written"
        )
    if at and rev != str(d["newest"]):
        fail(
            f"schedule declare: refused: {given} is not {id}'s newest revision; a schedule "
            f"convenes the newest, {id}@{d['newest']} (--definition {id}); nothing written"
        )
    return id


def _node_refusal(root: Path, terms) -> str:
    """Why the organization's Scheduler (the genome's own, on the catalog and
    this clone's memory) would refuse `terms`, or "". What needs a memory this
    clone has not (who holds a graph position) is left to the organization."""
    from hale_lang.diagnostics import HaleError
    from hale_runtime.catalog import load_catalog
    from hale_runtime.catalog.load import GenomeError
    from hale_runtime.cli.organism import project_memory
    from hale_runtime.schedules.binding import ScheduleHost
    from hale_runtime.schedules.scheduler import Scheduler

    try:
        catalog = load_catalog(root)
        scheduler = Scheduler(root)
    except (GenomeError, HaleError):
        return ""  # a genome that does not build is the organization's to report
    memory = project_memory(root)
    try:
        why = scheduler.refusal(ScheduleHost(catalog, memory), terms)
    finally:
        if memory is not None:
            memory.close()
    return "" if memory is None and "no memory is named" in why else why


def _await(record, terms, request_id: str) -> None:
    from hale_runtime.schedules import ask
    from hale_runtime.schedules.declare import declared_text

    answer = wait_for(record, lambda: ask.answer(record, request_id), answer_wait_s())
    if answer is None:
        fail(
            f"asked for the schedule, but the organization journaled no answer for {request_id} "
            "in time; the request stays in the record, and a running organization declares it "
            "when it hears it"
        )
    if not answer.body.get("declared"):
        fail_line = f"schedule declare: refused: {answer.body.get('why', '')}"
        click.echo(fail_line)
        raise SystemExit(1)
    tail = " (unchanged; nothing written)" if answer.body.get("unchanged") else ""
    click.echo(f"schedule {terms.id} declared: {declared_text(terms)}{tail}")


def _flip(id: str, pause: bool) -> None:
    from hale_runtime.schedules.ask import pause_or_resume

    record = _record(_root())
    fetch_unless_offline(record, False)  # first, so the clone reads it as the remote has it
    try:
        written, line = pause_or_resume(record, id, pause)
    except KeyError:
        fail(f"no schedule {id} is declared in the record (`hale dna schedule` lists them)")
    click.echo(line)
    if written:
        exit_unless_landed(record)


@schedule.command("pause")
@click.argument("id")
def pause(id: str) -> None:
    """Pause schedule ID: nothing occurs, and nothing is missed, until it is resumed."""
    _flip(id, True)


@schedule.command("resume")
@click.argument("id")
def resume(id: str) -> None:
    """Resume schedule ID from its next occurrence."""
    _flip(id, False)
