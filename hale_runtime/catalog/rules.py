"""Binding rules: what the catalog refuses, each case with its own reason.

Two moments. A *call* (`define`, `leaf`, `child`, `occurs`) is checked as
it is made, against the definition so far: names, store words, keys,
attempts, and the per-step and per-definition limits. When the genome's
`workflows` returns, the catalog is *sealed*: children resolve to the newest
revision of the definition they name, recursion is found by a depth-first
walk, and each tree's depth and units of work are counted. A definition that
fails either is refused whole. What remains is checked for *admission*: the
first step, in order, on a part the organization cannot write yet or that it
does not perform, is why an admission would refuse it.

Every function returns the reason as a lowercase clause, "" when it binds.
"""

from __future__ import annotations

import difflib

from hale_runtime.catalog.model import (
    INPUT,
    KEY,
    MAX_ATTEMPTS,
    MAX_MEMBERS,
    MAX_STEPS,
    MODES,
    ORGANISM_STEPS,
    STORES,
    UNWRITABLE,
    Child,
    Definition,
    Leaf,
)

SEPARATORS = ",+/|&;"


def check_id(id: str, rev: int) -> str:
    if not KEY.fullmatch(id):
        return f"a definition id is [a-z0-9-]+, and `{id}` is not"
    if rev < 1:
        return f"a revision counts from 1, and {rev} does not"
    return ""


def parse_stores(stores: str) -> tuple[list[str], str]:
    """The store word of each step (one word a step, space-separated)."""
    if stores.strip() == "":
        return [], 'it names no step: give one store word a step, as in "record forge"'
    words = stores.split(" ")
    if len(words) > MAX_STEPS:
        return [], f"it has {len(words)} steps, past the limit of {MAX_STEPS}"
    for i, word in enumerate(words):
        reason = _check_store_word(i, word)
        if reason:
            return [], reason
    return words, ""


def _check_store_word(i: int, word: str) -> str:
    if word == "":
        return f"step {i} names no store: give each step one store word"
    parts = [p for p in _split_any(word) if p]
    if len(parts) > 1:
        named = " and ".join(f"`{p}`" for p in parts)
        return f"step {i} names two stores ({named}): a step writes one store"
    if word not in STORES:
        close = difflib.get_close_matches(word, STORES, n=1)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        return (
            f"step {i} names `{word}`, which is no store{hint}; the stores are {', '.join(STORES)}"
        )
    return ""


def _split_any(word: str) -> list[str]:
    for sep in SEPARATORS:
        word = word.replace(sep, " ")
    return word.split(" ")


def check_member(d: Definition, step: int, key: str) -> str:
    """What any member (leaf or child) must satisfy."""
    if not 0 <= step < len(d.steps):
        return f"step {step} is not one of its steps (0 to {len(d.steps) - 1})"
    if not KEY.fullmatch(key):
        return f"step {step} member key `{key}` is outside [a-z0-9-]+"
    members = d.steps[step].members
    if any(m.key == key for m in members):
        return f"step {step} already has a member `{key}`"
    if len(members) >= MAX_MEMBERS:
        return f"step {step} would have {len(members) + 1} members, past the limit of {MAX_MEMBERS}"
    return ""


def check_leaf(objective: str, requires: tuple[str, ...], attempts: int) -> str:
    if objective.strip() == "":
        return "a leaf says its objective, and this one's is empty"
    if not requires:
        return "a leaf names the capability it requires, and this one names none"
    if attempts < 1:
        return f"a leaf may take at least 1 attempt, and this one says {attempts}"
    if attempts > MAX_ATTEMPTS:
        return f"a leaf may take {attempts} attempts, past the limit of {MAX_ATTEMPTS}"
    return ""


def parse_child(d: Definition, definition: str) -> str:
    """A child names `id` or `id@rev`; naming its own definition recurses."""
    id, _, rev = definition.partition("@")
    if not KEY.fullmatch(id) or (rev and not rev.isdigit()):
        return f"a child names a definition as id or id@rev, and `{definition}` is neither"
    if id == d.id:
        return f"a child that runs {d.id} again would recurse"
    return ""


def parse_occurs(d: Definition, mode: str, input: str) -> tuple[tuple[str, ...], str]:
    if d.occurs is not None:
        return (), "it already says how it occurs"
    if mode not in MODES:
        return (), f"occurs is skip or overlap, and `{mode}` is neither"
    names = tuple(_split_any(input.replace(",", " ")))
    names = tuple(n for n in names if n)
    for n in names:
        if not INPUT.fullmatch(n):
            return (), f"an input is named [a-z][a-z0-9_]*, and `{n}` is not"
    if len(set(names)) != len(names):
        return (), "it names an input twice"
    return names, ""


def admission(d: Definition, children: dict[str, Definition]) -> str | None:
    """Why an admission would refuse `d`: its first step on a part the
    organization cannot write, or a leaf it does not perform. `children`
    maps each child key "step/key" to the bound child definition."""
    for step in d.steps:
        prefix = f"workflow {d.name} step {step.index} ({step.label})"
        if step.store in UNWRITABLE:
            return f"{prefix} {UNWRITABLE[step.store]}"
        for m in step.members:
            if isinstance(m, Leaf) and m.requires[0] == "organism" and m.key not in ORGANISM_STEPS:
                return f"{prefix}: the organization performs no step {m.key}"
            if isinstance(m, Child):
                child = children[f"{step.index}/{m.key}"]
                if child.admission:
                    return f"{prefix} runs {child.admission}"
    return None
