"""`hale dna work`: a leg's verbs, through the head of the node serving this project.

`next` claims one outstanding attempt the leg can perform (or shows the one
it holds) and prints it; `allowance` asks the organization for the
attempt's budget and prints the grant; `call PROMPT` makes one model call
within the grant (refused, and not made, when its known price is past what
is left); `submit --outcome` settles the attempt and waits for the
organization to record it; `renew` and `release` keep or give back the
lease. The leg is HALE_DNA_LEG, else `leg:<you>`. Exit codes: 0 ok, 1 refused
or nothing to do, 2 usage.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from hale_runtime.cli.common import fail
from hale_runtime.record import kinds


def _leg():
    from hale_runtime.head import HeadClient, Leg, find_head, leg_name
    from hale_runtime.project import find_root
    from hale_runtime.record.identity import clone_id, default_who

    root = find_root()
    url, token = find_head(root)
    import pygit2

    repo = pygit2.Repository(pygit2.discover_repository(str(root)))
    return Leg(root, leg_name(default_who(clone_id(repo))), HeadClient(url, token))


def _run(act):
    from hale_runtime.head import HeadError

    try:
        return act()
    except HeadError as error:
        fail(str(error))


@click.group("work")
def work() -> None:
    """A leg's work: claim an attempt, ask its allowance, settle it."""


@work.command("next")
@click.option("--requires", default="", help="only an attempt requiring this word")
@click.option("--json", "as_json", is_flag=True, help="the attempt as one JSON object")
def next_(requires: str, as_json: bool) -> None:
    """Claim one outstanding attempt this leg can perform, and print it."""
    leg = _leg()
    got = _run(lambda: leg.next(requires))
    if got is None:
        click.echo("work: no attempt is open for this leg")
        raise SystemExit(1)
    if as_json:
        click.echo(json.dumps(got))
        return
    click.echo(
        f"attempt {got['attempt']} (task {got['task']}), leased to {leg.name} (token {got['token']})"
    )
    click.echo(f"  objective: {got['objective']}")
    click.echo(f"  requires: {' '.join(got['requires'])}")


@work.command("allowance")
@click.option("--wait", type=float, default=30.0, help="seconds to wait for the organization")
def allowance(wait: float) -> None:
    """Ask for the attempt's budget before its first model call; print the grant."""
    leg = _leg()
    got = _run(lambda: leg.allowance(wait))
    if not got.get("answered"):
        fail(f"the organization has not answered the allowance of {got['attempt']} yet; ask again")
    if got.get("refused"):
        click.echo(f"allowance: {got['refused']}")
        raise SystemExit(1)
    click.echo(f"allowance: {got['granted']} micro-dollars granted for {got['attempt']}")


@work.command("call")
@click.argument("prompt")
def call(prompt: str) -> None:
    """Make one model call within the grant, and print its answer."""
    from hale_runtime.performers import Performers, plugin_manager
    from hale_runtime.performers.http_provider import model_plugins

    leg = _leg()
    leg.provider = Performers(plugin_manager(*model_plugins())).provider
    click.echo(_run(lambda: leg.call(prompt)))


@work.command("submit")
@click.option("--outcome", type=click.Choice(["succeeded", "failed"]), required=True)
@click.option("--note", default="", help="what the leg did, for the record")
def submit(outcome: str, note: str) -> None:
    """Settle the attempt held; wait for the organization to record it."""
    leg = _leg()
    got = _run(lambda: leg.submit(outcome, note))
    attempt = got["attempt"]
    settled = _await_settled(leg.root, attempt)
    if settled is None:
        click.echo(
            f"attempt {attempt} submitted {outcome}; the organization settles it when it hears it"
        )
        return
    detail = f" ({settled.body['detail']})" if settled.body.get("detail") else ""
    click.echo(f"attempt {attempt} settled {settled.body.get('outcome')}{detail}")


def _await_settled(root: Path, attempt: str):
    from hale_runtime.cli.organism import answer_wait_s, wait_for
    from hale_runtime.record import Record

    record = Record.open(root)
    found = lambda: next(iter(record.rows(kind=kinds.ATTEMPT_OUTCOME, key=attempt)), None)  # noqa: E731
    return wait_for(record, found, answer_wait_s())


@work.command("renew")
def renew() -> None:
    """Keep the lease on the attempt held."""
    leg = _leg()
    got = _run(leg.renew)
    click.echo(f"lease on {got['attempt']} renewed (token {got['token']})")


@work.command("release")
def release() -> None:
    """Give the attempt back unsettled, for another leg."""
    leg = _leg()
    got = _run(leg.release)
    click.echo(f"attempt {got['attempt']} given back")
