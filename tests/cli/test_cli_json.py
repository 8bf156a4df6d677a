"""Every verb that lists or reads prints one JSON document with `--json`, in
the shape hale_runtime/cli/shapes.py gives it (docs/cli.md prints the same
shapes); every verb with a `--json` option is read here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hale_runtime.cli import hale
from hale_runtime.cli.shapes import LINES, SHAPES, conforms
from hale_runtime.record import Record

# the shape's name -> the arguments after `hale` ("TASK" is the task that occurred)
READS: dict[str, list[str]] = {
    "check": ["check", "--output-format", "json", "dna"],
    "dna schedule": ["dna", "schedule", "--json", "--offline"],
    "dna show TASK": ["dna", "show", "TASK", "--json", "--offline"],
    "dna show processes": ["dna", "show", "processes", "--json", "--offline"],
    "dna review": ["dna", "review", "--json", "--offline"],
    "dna effect": ["dna", "effect", "--json", "--offline"],
    "dna body": ["dna", "body", "--json"],
    "dna key list": ["dna", "key", "list", "--json"],
    "dna whoami": ["dna", "whoami", "--json"],
    "dna status": ["dna", "status", "--json", "--offline"],
    "dna history": ["dna", "history", "--json", "--offline"],
    "dna definitions": ["dna", "definitions", "--json"],
    "dna simulate": ["dna", "simulate", "--from", "2026-01-01", "--to", "2026-01-03", "--json"],
    "dna body provision": ["dna", "body", "provision", "--json"],
    "dna grant": ["dna", "grant", "--json"],
    "dna ledger": ["dna", "ledger", "--json"],
    "dna work next": [],  # a leg's claim: read in tests/head, it needs a running head
}


def run(root: Path, args: list[str]):
    old = Path.cwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(hale, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def documents(root: Path, name: str) -> list:
    task = Record.open(root).rows(kind="workflow.admitted")[0].key
    args = [task if a == "TASK" else a for a in READS[name]]
    result = run(root, args)
    assert result.exit_code == 0, (name, result.output)
    if name in LINES:
        return [json.loads(line) for line in result.stdout.splitlines()]
    return [json.loads(result.stdout)]


@pytest.mark.parametrize("name", [n for n, args in READS.items() if args])
def test_each_verbs_json_has_its_shape(lived: Path, name: str):
    found = documents(lived, name)
    assert found, name
    for doc in found:
        assert conforms(doc, SHAPES[name]) == [], name


def test_the_listings_say_what_the_record_holds(lived: Path):
    (schedule,) = documents(lived, "dna schedule")[0]["schedules"]
    assert schedule["id"] == "nightly" and schedule["cron"] == "0 2 * * *"
    assert schedule["occurred"] == 1 and schedule["state"] == "live"
    shown = documents(lived, "dna show TASK")[0]
    assert shown["task"]["definition"].startswith("ask-edit")
    assert shown["task"]["steps"], "the tree has its steps"
    (process,) = documents(lived, "dna show processes")[0]["processes"]
    assert process == {
        "convener": "position:editor", "definition": "definition:ask-edit", "cadence": "0 2 * * *",
    } or process["convener"] == "position:editor"  # fmt: skip
    keys = documents(lived, "dna key list")[0]
    assert keys["genesis"] and keys["keys"][0]["bound"] == "genesis"
    assert keys["delegates"] == []


def _with_json(command: click.Command, path: tuple[str, ...] = ()):
    """Every (path, command) below `command` that takes --json."""
    if any("--json" in p.opts for p in command.params):
        yield " ".join(path), command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            yield from _with_json(command.get_command(ctx, name), (*path, name))


def test_every_json_option_has_a_shape_and_a_read():
    named = {n.replace(" TASK", "").replace(" processes", "") for n in SHAPES}
    for path, _ in _with_json(hale):
        assert path in named, f"`hale {path} --json` has no shape in hale_runtime/cli/shapes.py"
    assert set(READS) == set(SHAPES)


def test_a_shape_refuses_what_departs_from_it():
    shape = SHAPES["dna body"]
    assert conforms({"lease": None, "where": "x"}, shape) == []
    assert conforms({"lease": {"holder": 1}, "where": "x"}, shape)
    assert conforms({"where": "x"}, shape) == ["$: no key 'lease'"]


def test_the_listings_of_hosts_and_grants_hold_what_was_written(project: Path):
    assert run(project, ["dna", "body", "provision", "localhost"]).exit_code == 0
    granted = run(project, ["dna", "grant", "leader", "--reviews", "operating"])
    assert granted.exit_code == 0, granted.output
    (host,) = documents(project, "dna body provision")[0]["hosts"]
    assert host["host"] == "localhost" and conforms(host, SHAPES["dna body provision"]["hosts"][0]) == []  # fmt: skip
    (grant,) = documents(project, "dna grant")[0]["grants"]
    assert grant["position"] == "leader" and grant["reviews"] == ["operating"] and grant["live"]
    assert conforms(documents(project, "dna grant")[0], SHAPES["dna grant"]) == []
