"""`hale dna simulate`: what the schedules would do over a window, in seconds.

    hale dna simulate --from 2026-12-01T00:00Z --to 2027-01-01T00:00Z \\
        [--down 2026-12-24T00:00Z/2026-12-26T00:00Z]… [--open-for 90m] [--json]

Runs the genome's Scheduler and engine on a virtual clock over a throwaway
copy of the record (hale_runtime/schedules/simulate.py) and prints, per
schedule as `hale dna schedule` lists it, how many occurrences would run,
be skipped and be missed (saying how many misses lie before the window: the
organism starts at --from, as a node started then would), and the first
few occurrence keys; `--json` prints every one. Times are UTC, as
occurrences are named (`2026-12-01T00:00Z`, seconds allowed, or a date);
`--from` defaults to now and `--to` to 30 days after it. Exit 0; 1 when the
genome does not build or the window holds too much work; 2 on bad options.
The project's record and memory are never written.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import click

from hale_runtime.cli.common import EXIT_REFUSED, EXIT_USAGE, fail

DAY = 86_400_000
SHOWN = 3  # occurrence keys printed per schedule
_DURATION = re.compile(r"(\d+)(ms|s|m|h|d)")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": DAY}


def parse_time(text: str) -> int:
    """UTC ms of `2026-12-01T00:00Z` (seconds, milliseconds allowed) or `2026-12-01`."""
    from hale_runtime.schedules.terms import parse_stamp

    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        text += "T00:00Z"
    if not text.endswith("Z"):
        raise ValueError(f"`{text}` is not a UTC time: write it as 2026-12-01T00:00Z")
    try:
        return parse_stamp(text)
    except ValueError:
        raise ValueError(f"`{text}` is not a UTC time: write it as 2026-12-01T00:00Z") from None


def parse_duration(text: str) -> int:
    m = _DURATION.fullmatch(text)
    if m is None:
        raise ValueError(f"`{text}` is not a duration: write it as 90m, 2h, 1d, 30s or 500ms")
    return int(m.group(1)) * _UNIT_MS[m.group(2)]


def _usage(fn, text: str, option: str):
    try:
        return fn(text)
    except ValueError as e:
        fail(f"{option}: {e}", EXIT_USAGE)


@click.command("simulate")
@click.option("--from", "start", default=None, help="UTC start (default: now)")
@click.option("--to", "end", default=None, help="UTC end (default: 30 days after --from)")
@click.option("--down", multiple=True, help="a period the organism is down: START/END (repeat)")
@click.option("--open-for", default="0ms", help="how long each execution stays open (90m)")
@click.option("--json", "as_json", is_flag=True, help="every occurrence, as JSON")
def simulate(
    start: str | None, end: str | None, down: tuple[str, ...], open_for: str, as_json: bool
) -> None:
    """Run the schedules over a window on a virtual clock, on a copy of the record."""
    from hale_runtime.schedules.terms import stamp

    now = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    first = _usage(parse_time, start, "--from") if start else now - now % 60_000
    last = _usage(parse_time, end, "--to") if end else first + 30 * DAY
    if last <= first:
        fail(f"--to {stamp(last)} is not after --from {stamp(first)}", EXIT_USAGE)
    periods = [_period(p) for p in down]
    held = _usage(parse_duration, open_for, "--open-for")
    report = _run(first, last, periods, held)
    if as_json:
        click.echo(json.dumps(_json(report, periods, held), indent=2, ensure_ascii=False))
    else:
        for line in _lines(report, periods, held):
            click.echo(line)


def _period(text: str) -> tuple[int, int]:
    a, sep, b = text.partition("/")
    if not sep:
        fail(f"--down {text}: write a period as START/END", EXIT_USAGE)
    start, end = _usage(parse_time, a, "--down"), _usage(parse_time, b, "--down")
    if end <= start:
        fail(f"--down {text}: its end is not after its start", EXIT_USAGE)
    return start, end


def _run(first: int, last: int, periods: list[tuple[int, int]], held: int):
    from hale_lang.diagnostics import HaleError
    from hale_runtime.catalog.load import GenomeError
    from hale_runtime.cli.common import echo_diagnostics
    from hale_runtime.project import find_root
    from hale_runtime.schedules.simulate import Simulation, TooLong

    root = find_root()  # no project, or a record that fails: the dna group's one line
    from hale_runtime.cli.progress import progress

    try:
        with progress("simulate", last - first) as bar:
            return Simulation(
                root, first, last, periods, held, progress=lambda now: bar.update(now - first)
            ).run()
    except GenomeError as e:
        click.echo(e.text, err=True)
    except HaleError as e:
        echo_diagnostics(e.diagnostics, getattr(e, "sources", None))
    except TooLong as e:
        fail(f"simulate: {e}; narrow --from/--to")
    raise SystemExit(EXIT_REFUSED)


def _head(report, periods, held) -> str:
    from hale_runtime.schedules.terms import duration, stamp

    out = f"simulated {stamp(report.start)} to {stamp(report.end)} on a copy of the record"
    for a, b in periods:
        out += f", down {stamp(a)}/{stamp(b)}"
    if held:
        out += f", executions open {duration(held)}"
    return out + " (nothing written)"


def _lines(report, periods, held) -> list[str]:
    from hale_runtime.schedules.listing import NONE_DECLARED

    lines = [_head(report, periods, held)]
    if not report.schedules:
        return [*lines, NONE_DECLARED]
    lines.append(f"schedules: {len(report.schedules)}")
    for s in report.schedules:
        lines.append(f"  {s.id} [{'paused' if s.paused else 'live'}] {s.when} — {s.definition}, "
                     f"convened by {s.convener} · {_counts(s, report.start)}")  # fmt: skip
        keys = [o["occurrence"] for o in s.occurred]
        if keys:
            more = f", … {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
            lines.append(f"    {', '.join(keys[:SHOWN])}{more}")
    return lines


def _counts(s, start: int) -> str:
    """As `hale dna schedule` counts, saying which misses came before the window."""
    from hale_runtime.schedules.terms import parse_stamp

    early = sum(parse_stamp(m["at"]) < start for m in s.missed)
    out = f"occurred {len(s.occurred)}, skipped {len(s.skipped)}, missed {len(s.missed)}"
    if early:
        out += f" ({early} before the window)"
    return out + (f", failed {len(s.failed)}" if s.failed else "")


def _json(report, periods, held) -> dict:
    from hale_runtime.schedules.terms import stamp

    return {
        "from": stamp(report.start),
        "to": stamp(report.end),
        "down": [f"{stamp(a)}/{stamp(b)}" for a, b in periods],
        "open_for_ms": held,
        "schedules": [s.as_json() for s in report.schedules],
    }
