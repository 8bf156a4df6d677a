"""The one JSON shape each verb's `--json` prints, and a checker for it.

A shape is written as the JSON it describes: a dict names every key an
object has (no more, no fewer), a one-item list is a list of that item,
and a string names a scalar type — "string", "integer", "number",
"boolean", "object" (any JSON object, its keys the verb's own: a row's
body, a catalog), "any", or a union such as "string|null". A string
starting with "@" refers to a shape in REFS (the task tree nests itself).
`conforms` walks a value and its shape together and answers every place
they disagree; docs/cli.md prints the shapes (scripts/cli-docs), and
tests/cli/test_cli_json.py checks each verb's output against its own.
Verbs print with `emit`, so every `--json` is laid out alike.
"""

from __future__ import annotations

import json
from typing import Any

import click

ATTEMPT = {"id": "string", "performer": "string", "state": "string", "outcome": "string|null"}
LEAF = {
    "key": "string",
    "id": "string",
    "objective": "string",
    "requires": ["string"],
    "outcome": "string|null",
    "attempts_allowed": "integer",
    "attempts": [ATTEMPT],
}
REFS: dict[str, Any] = {
    "task": {
        "id": "string",
        "definition": "string",
        "state": "string",
        "outcome": "string|null",
        "steps": [
            {
                "id": "string",
                "store": "string",
                "state": "string",
                "leaves": [LEAF],
                "children": [{"key": "string", "definition": "string", "task": "@task|null"}],
            }
        ],
    },
}
CASE = {
    "attempt": "string",
    "task": "string",
    "definition": "string",
    "objective": "string",
    "since": "integer",
    "whom": "string",
    "why": "string",
}
SCHEDULE = {
    "id": "string",
    "state": "string",
    "every_ms": "integer",
    "cron": "string",
    "definition": "string",
    "convener": "string",
    "args": "object",
    "occurred": "integer",
    "skipped": "integer",
    "missed": "integer",
    "last_task": "string|null",
}
LEASE = {"holder": "string", "token": "integer|string", "until": "integer", "live": "boolean"}

# verb (as typed after `hale`) -> the shape its --json prints
SHAPES: dict[str, Any] = {
    "check": {
        "files": "integer",
        "errors": "integer",
        "warnings": "integer",
        "diagnostics": [
            {
                "path": "string|null",
                "line": "integer|null",
                "column": "integer|null",
                "end_line": "integer|null",
                "end_column": "integer|null",
                "code": "string",
                "severity": "string",
                "message": "string",
                "help": "string|null",
            }
        ],
    },
    "dna schedule": {"schedules": [SCHEDULE]},
    "dna show TASK": {
        "task": "@task",
        "ask": "string",
        "convener": "string",
        "admitted_by": "string",
    },
    "dna show processes": {
        "processes": [{"convener": "string", "definition": "string", "cadence": "string"}]
    },
    "dna review": {
        "reviews": [{"key": "string", "family": "string", "practice": "string", "text": "string"}],
        "cases": [CASE],
    },
    "dna effect": {"cases": [CASE]},
    "dna body": {"lease": "@lease|null", "where": "string"},
    "dna key list": {
        "genesis": "string|null",
        "keys": [
            {"fingerprint": "string", "identity": "string", "bound": "string", "revoked": "boolean"}
        ],
        "delegates": ["string"],
    },
    "dna whoami": {
        "identity": "string",
        "who": "string",
        "key": {"fingerprint": "string", "source": "string"},
        "record": "string|null",
        "holds": ["string"],
    },
    "dna body provision": {
        "hosts": [
            {
                "host": "string",
                "address": "string",
                "owner": "string|null",
                "by": "string",
                "at": "integer",
            }
        ]
    },
    "dna grant": {
        "grants": [
            {
                "position": "string",
                "holder": "string|null",
                "reviews": ["string"],
                "until": "integer|null",
                "live": "boolean",
            }
        ]
    },
    "dna ledger": {
        "adopted": "boolean",
        "epoch": "integer|null",
        "claim": "string|null",
        "holder": "string|null",
        "waiting": "integer|null",
    },
    "dna definitions": "object",
    "dna status": {
        "lease": "object|null",
        "lease_from": "any",
        "nodes": ["object"],
        "store": "object|null",
        "last_packed": "any",
        "quarantined": "any",
        "budget_exhausted": "object|null",  # the window running now, when it is spent
    },
    "dna history": "object",  # one object a line (JSON Lines): a row, as_json
    "dna simulate": {
        "from": "string",
        "to": "string",
        "down": ["string"],
        "open_for_ms": "integer",
        "schedules": ["object"],
    },
    "dna work next": "object",
}
REFS["lease"] = LEASE
LINES = {"dna history"}  # verbs printing one JSON document a line


def emit(value: Any) -> None:
    """Print one verb's JSON document on stdout."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def conforms(value: Any, shape: Any, where: str = "$") -> list[str]:
    """Every place `value` departs from `shape` ([] when it fits)."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        out = [f"{where}: no key {k!r}" for k in shape if k not in value]
        out += [f"{where}: key {k!r} is not in the shape" for k in value if k not in shape]
        for k, sub in shape.items():
            if k in value:
                out += conforms(value[k], sub, f"{where}.{k}")
        return out
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [
            e for i, item in enumerate(value) for e in conforms(item, shape[0], f"{where}[{i}]")
        ]
    errors: list[str] = []
    for choice in shape.split("|"):
        if choice.startswith("@"):
            errors = conforms(value, REFS[choice[1:]], where)
            if not errors:
                return []
        elif _scalar(value, choice):
            return []
    return errors or [f"{where}: {json.dumps(value)[:40]} is not {shape}"]


def _scalar(value: Any, name: str) -> bool:
    if name == "any":
        return True
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError(f"no scalar type {name!r}")


def shown(shape: Any) -> str:
    """A shape as docs/cli.md prints it."""
    return json.dumps(shape, indent=2)
