"""One project per refusal kind: each binding rule, and each limit at the
limit and one past it. A call the catalog refuses leads the listing and
fails the verb (exit 1), naming the `.hl` call; a definition an admission
would refuse is listed with its reason and the verb succeeds."""

from __future__ import annotations

import pytest
from catalog_helpers import own_part


def leaf(id: str, step: int, key: str, attempts: int = 1, requires: str = "analysis") -> str:
    work = f'dna::WorkRequest {{ objective: "do {key}", requires: "{requires}" }}'
    return f'catalog.leaf("{id}", 1, {step}, "{key}", {work}, {attempts})'


def chain(*calls: str) -> str:
    """Hale that makes each call in turn and returns the first refusal."""
    lines = []
    for i, call in enumerate(calls[:-1]):
        lines += [f"let r{i} = {call};", f"if len(r{i}) > 0 {{ return r{i}; }}"]
    return "\n".join([*lines, f"return {calls[-1]};"])


def steps(n: int) -> str:
    """Hale: a definition `wide` of n record steps, one leaf each."""
    return f"""
let stores = "record";
let i = 1;
while i < {n} {{ stores = stores + " record"; i = i + 1; }}
let d = catalog.define("wide", 1, stores, "many steps");
if len(d) > 0 {{ return d; }}
let s = 0;
while s < {n} {{
    let r = catalog.leaf("wide", 1, s, "m" + to_string(s), dna::WorkRequest {{ objective: "o", requires: "analysis" }}, 1);
    if len(r) > 0 {{ return r; }}
    s = s + 1;
}}
return "";
"""


def members(n: int) -> str:
    """Hale: a definition `crowd` with n leaves in its one step."""
    return f"""
let d = catalog.define("crowd", 1, "record", "one crowded step");
if len(d) > 0 {{ return d; }}
let m = 0;
while m < {n} {{
    let r = catalog.leaf("crowd", 1, 0, "m" + to_string(m), dna::WorkRequest {{ objective: "o", requires: "analysis" }}, 1);
    if len(r) > 0 {{ return r; }}
    m = m + 1;
}}
return "";
"""


def depth(n: int) -> str:
    """Hale: a chain d1 → d2 → … → dn of children, dn one leaf."""
    return f"""
let i = {n};
while i > 0 {{
    let id = "d" + to_string(i);
    let d = catalog.define(id, 1, "record", "level " + to_string(i));
    if len(d) > 0 {{ return d; }}
    let r = "";
    if i == {n} {{
        r = catalog.leaf(id, 1, 0, "w", dna::WorkRequest {{ objective: "o", requires: "analysis" }}, 1);
    }} else {{
        r = catalog.child(id, 1, 0, "c", "d" + to_string(i + 1));
    }}
    if len(r) > 0 {{ return r; }}
    i = i - 1;
}}
return "";
"""


def units(n: int) -> str:
    """Hale: `big`, whose steps of 32 leaves hold n units of work in all; the
    last unit past a multiple of 32 is a child of one leaf."""
    full, rest = divmod(n, 32)
    nsteps = full + (1 if rest else 0)
    return f"""
let one = catalog.define("one", 1, "record", "one unit");
if len(one) > 0 {{ return one; }}
let w = catalog.leaf("one", 1, 0, "w", dna::WorkRequest {{ objective: "o", requires: "analysis" }}, 1);
if len(w) > 0 {{ return w; }}
let stores = "record";
let i = 1;
while i < {nsteps} {{ stores = stores + " record"; i = i + 1; }}
let d = catalog.define("big", 1, stores, "many units");
if len(d) > 0 {{ return d; }}
let n = 0;
while n < {n} {{
    let step = n / 32;
    let key = "u" + to_string(n);
    let r = "";
    if n == {n} - 1 && {rest} == 1 {{
        r = catalog.child("big", 1, step, key, "one");
    }} else {{
        r = catalog.leaf("big", 1, step, key, dna::WorkRequest {{ objective: "o", requires: "analysis" }}, 1);
    }}
    if len(r) > 0 {{ return r; }}
    n = n + 1;
}}
return "";
"""


def define(id: str, stores: str) -> str:
    return f'catalog.define("{id}", 1, "{stores}", "{id} for a test")'


CASES = {
    # a name that does not exist
    "unknown-child": chain(define("p", "record"), 'catalog.child("p", 1, 0, "c", "nope")'),
    "unknown-definition": chain(leaf("ghost", 0, "w")),
    # a child that would recurse
    "recursion-direct": chain(define("p", "record"), 'catalog.child("p", 1, 0, "again", "p")'),
    "recursion-indirect": chain(
        define("a", "record"),
        define("b", "record"),
        'catalog.child("a", 1, 0, "to-b", "b")',
        'catalog.child("b", 1, 0, "to-a", "a")',
    ),
    # a member key outside [a-z0-9-]+
    "member-key": chain(define("p", "record"), leaf("p", 0, "Post")),
    "member-key-space": chain(define("p", "record"), leaf("p", 0, "the post")),
    # a step naming no store, two, or an unknown word
    "store-none": chain(define("p", "record  record")),
    "store-no-step": chain(define("p", "")),
    "store-two": chain(define("p", "record forge+record")),
    "store-unknown": chain(define("p", "record recrod")),
    # a step with no member
    "step-empty": chain(define("p", "record record"), leaf("p", 0, "only")),
    # a step on a part not buildable yet, or one the organization does not perform
    "part-heart": chain(define("p", "record heart"), leaf("p", 0, "a"), leaf("p", 1, "b")),
    "part-vault": chain(define("p", "vault"), leaf("p", 0, "a")),
    "part-host": chain(define("p", "host record"), leaf("p", 0, "a"), leaf("p", 1, "b")),
    "not-performed": chain(define("p", "record"), leaf("p", 0, "offered", requires="organism")),
    "child-part": chain(define("p", "record"), 'catalog.child("p", 1, 0, "d", "deploy-observe")'),
    # limits, at the limit and one past it
    "steps-32": steps(32),
    "steps-33": steps(33),
    "members-32": members(32),
    "members-33": members(33),
    "attempts-8": chain(define("p", "record"), leaf("p", 0, "a", attempts=8)),
    "attempts-9": chain(define("p", "record"), leaf("p", 0, "a", attempts=9)),
    "attempts-0": chain(define("p", "record"), leaf("p", 0, "a", attempts=0)),
    "depth-8": depth(8),
    "depth-9": depth(9),
    "units-256": units(256),
    "units-257": units(257),
    # revisions and occurs
    "duplicate-revision": chain(define("p", "record"), leaf("p", 0, "a"), define("p", "record")),
    "occurs-mode": chain(
        define("p", "record"), leaf("p", 0, "a"), 'catalog.occurs("p", 1, "twice", "")'
    ),
}

FAILS = {
    "unknown-child", "unknown-definition", "recursion-direct", "recursion-indirect",
    "member-key", "member-key-space", "store-none", "store-no-step", "store-two",
    "store-unknown", "step-empty", "steps-33", "members-33", "attempts-9", "attempts-0",
    "depth-9", "units-257", "duplicate-revision", "occurs-mode",
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_refusal(project, snapshot, case):
    project.own(CASES[case])
    r = project.run("dna", "definitions")
    assert r.err == ""
    assert r.code == (1 if case in FAILS else 0), r.out
    if case in FAILS:
        assert r.out.startswith("dna/org/own_workflows.hl:"), r.out[:200]
    assert own_part(r.out) == snapshot


def test_a_refused_call_names_its_place(project):
    project.own(chain(define("p", "record"), leaf("p", 0, "Bad")))
    r = project.run("dna", "definitions")
    assert r.out.splitlines()[0] == (
        "dna/org/own_workflows.hl:6:12: the catalog refused p@1: "
        "step 0 member key `Bad` is outside [a-z0-9-]+"
    )
