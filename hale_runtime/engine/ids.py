"""The ids of an execution's parts, as `hale dna history` shows them.

A root task is `t<N>`, numbered in admission order; N is minted under a
claim in memory (engine.py's `_mint`), so bodies sharing a record never
hand out one N twice. A child task is its
parent's id, the step and the member key: `t1.s0.b`. A step is
`<task>/wf<rev>/s<index>`, a unit of work `<step>/<key>`, an attempt
`<unit>/a<n>`. Every id is a pure function of its parent's, so a fold over
the record finds the same ones after a restart.
"""

from __future__ import annotations


def root_id(n: int) -> str:
    return f"t{n}"


def root_number(task: str) -> int:
    """N of a root `t<N>` (0 for any other id)."""
    digits = task[1:]
    return int(digits) if task[:1] == "t" and digits.isdigit() and digits.isascii() else 0


def child_id(task: str, step: int, key: str) -> str:
    return f"{task}.s{step}.{key}"


def step_id(task: str, rev: int, index: int) -> str:
    return f"{task}/wf{rev}/s{index}"


def unit_id(step: str, key: str) -> str:
    return f"{step}/{key}"


def attempt_id(unit: str, n: int) -> str:
    return f"{unit}/a{n}"


def task_of(key: str) -> str:
    """The task an id belongs to: `t1.s0.b/wf1/s0/a/a0` -> `t1.s0.b`."""
    return key.split("/", 1)[0]


def root_of(key: str) -> str:
    """The root task an id belongs to: `t1.s0.b/wf1/s0` -> `t1`."""
    return key.split("/", 1)[0].split(".", 1)[0]
