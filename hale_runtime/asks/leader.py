"""The Leader's word on an ask, and the admission it binds.

`prompt` lays out the brief (charter, purpose, law, ratified practices) and
the ask, and asks for one JSON object. `parse` reads the answer: the first
JSON object in it, else `name: value` lines; anything else names nothing.
`decide` turns an ask and the Leader's word (None: no plan was asked) into
the admission, by the table: `--judgment` -> ask-judge, `--to position:` ->
ask-position, a person's job -> ask-person, anything else -> ask-edit. The
word binds but never widens: a target outside the ask's own is not taken
(the ask's stands, and the admission says so), a kind outside the four is
ignored, and a word naming no kind and no class leaves the defaults, an
application change at the ask's own target.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

KINDS = ("organism", "appendage", "product", "person")
DEFAULT_KIND, DEFAULT_CLASS, WHOLE = "application", "change", "."
FIELDS = ("kind", "class", "target", "whom", "obligation")
LINE = re.compile(r"^\s*(kind|class|target|whom|obligation)\s*:\s*(.+?)\s*$", re.M | re.I)


@dataclass(frozen=True)
class Ask:
    """An `intent.requested` row's body, as the organization reads it."""

    intent: str
    objective: str
    target: str = WHOLE
    judgment: bool = False
    to: str = ""  # "position:<name>" or ""
    by: str = ""
    owner: str = ""
    found: tuple[str, ...] = ()  # the optimize pass's signals, for an ask it wrote

    @classmethod
    def from_body(cls, intent: str, body: dict[str, Any], who: str = "") -> Ask:
        to = str(body.get("to") or "")
        return cls(
            intent,
            str(body.get("objective") or "").strip(),
            str(body.get("target") or WHOLE).strip() or WHOLE,
            bool(body.get("judgment")),
            to if not to or to.startswith("position:") else f"position:{to}",
            str(body.get("by") or who),
            str(body.get("owner") or ""),
            tuple(sorted(body["found"])) if isinstance(body.get("found"), dict) else (),
        )

    @property
    def position(self) -> str:
        """The position the ask is for: its `--to`, else the Leader's."""
        return self.to or "position:leader"


@dataclass(frozen=True)
class Brief:
    charter: str = ""
    purpose: str = ""
    law: tuple[str, ...] = ()
    practices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Word:
    """What the Leader answered; "" where it named nothing."""

    kind: str = ""
    change: str = ""
    target: str = ""
    whom: str = ""
    obligation: str = ""


@dataclass(frozen=True)
class Decision:
    definition: str
    objective: str  # the `objective` input of the ask definition
    body: dict[str, Any] = field(default_factory=dict)  # what `intent.offered` says


def prompt(brief: Brief, ask: Ask) -> str:
    """The Leader's prompt: its brief, then the ask, then the answer's shape."""
    lines = ["You are the Leader of this organization. You propose; the Board decides."]
    lines += [f"Charter: {brief.charter}", f"Purpose: {brief.purpose}", "Law:"]
    lines += [f"- {line}" for line in brief.law] or ["- (none)"]
    lines += ["Practices ratified for org:"]
    lines += [f"- {line}" for line in brief.practices] or ["- (none)"]
    lines += [f"Ask: {ask.objective}", f"Target: {ask.target}"]
    lines += [
        'Answer with one JSON object: {"kind": organism|appendage|product|person, '
        '"class": the class of change, "target": within the ask\'s target, '
        '"whom": for a person\'s job, who, "obligation": under what obligation}.'
    ]
    return "\n".join(lines)


def parse(answer: str) -> Word:
    """The Leader's word from its answer (an empty Word when it names nothing)."""
    found = _json_object(answer)
    if found is None:
        found = {m.group(1).lower(): m.group(2) for m in LINE.finditer(answer)}
    get = lambda name: str(found.get(name) or "").strip()  # noqa: E731
    return Word(get("kind").lower(), get("class"), get("target"), get("whom"), get("obligation"))


def _json_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def within(target: str, scope: str) -> bool:
    """Whether `target` lies inside `scope` (the whole application holds everything)."""
    t, s = target.strip("/"), scope.strip("/")
    return s in ("", WHOLE) or t == s or t.startswith(s + "/")


def decide(ask: Ask, word: Word | None) -> Decision:
    """The admission the ask gets, with what the Leader said (None: no plan)."""
    if ask.judgment:
        return Decision("ask-judge", ask.objective, {"planned": False, "target": ask.target})
    if ask.to:
        body = {"planned": False, "position": ask.to, "target": ask.target}
        return Decision("ask-position", ask.objective, body)
    body: dict[str, Any] = {"planned": word is not None}
    word = word or Word()
    kind = word.kind if word.kind in KINDS else DEFAULT_KIND
    if ask.found and kind != "organism":  # the optimize pass's ask changes the machinery only
        if word.kind:
            body["bound"] = "organism"
        kind = "organism"
    body.update(kind=kind, **{"class": word.change or DEFAULT_CLASS}, target=ask.target)
    if word.target and within(word.target, ask.target):
        body["target"] = word.target
    elif word.target:
        body["not_widened"] = word.target  # the Leader named a target outside the ask's
    if kind == "person":
        body.update(whom=word.whom, obligation=word.obligation)
        return Decision("ask-person", _for_person(ask.objective, word), body)
    objective = ask.objective
    if body["target"] != WHOLE:
        objective = f"{objective} (target: {body['target']})"
    return Decision("ask-edit", objective, body)


def _for_person(objective: str, word: Word) -> str:
    if not word.whom:
        return objective
    tail = f", {word.obligation}" if word.obligation else ""
    return f"{objective} (for {word.whom}{tail})"
