"""The text of `hale dna definitions`, rendered from the catalog's document.

First every call the catalog refused, one line each as `path:line:col: the
catalog refused <id@rev>: <reason>`; then `catalog <file>` and every
revision in catalog order: `<id>@<rev>  <summary>`, a line a step (`  <n>.
<members>  <store>`, a child member as `key → id@rev`), `  occurs: …` when
the definition says how it occurs, `  superseded by …` for an older
revision, and `  refused at admission: …` when an admission would refuse it.
"""

from __future__ import annotations

from typing import Any

MODE_TEXT = {"skip": "skip while open", "overlap": "overlap beside an open one"}


def refusal_lines(doc: dict[str, Any]) -> list[str]:
    lines = [
        f"{r['at']}: the catalog refused {r['definition']}: {r['reason']}" for r in doc["refusals"]
    ]
    if doc.get("returned") and not doc["refusals"]:
        lines.append(f"{doc['catalog']}: workflows returned {doc['returned']!r}, not a refusal")
    return lines


def text(doc: dict[str, Any]) -> str:
    revisions = {
        f"{d['id']}@{r['rev']}": (d, r) for d in doc["definitions"] for r in d["revisions"]
    }
    lines = [*refusal_lines(doc), f"catalog {doc['catalog']}"]
    for name in doc["order"]:
        d, r = revisions[name]
        lines += _revision(d, r)
    return "\n".join(lines)


def _revision(d: dict[str, Any], r: dict[str, Any]) -> list[str]:
    lines = [f"{d['id']}@{r['rev']}  {r['summary']}"]
    for step in r["steps"]:
        members = ", ".join(_member(m) for m in step["members"])
        lines.append(f"  {step['index']}. {members}  {step['store']}")
    if r["occurs"] is not None:
        lines.append(f"  occurs: {occurs_text(r['occurs'])}")
    if r["rev"] != d["newest"]:
        lines.append(f"  superseded by {d['id']}@{d['newest']} for new work")
    if r["admission"]:
        lines.append(f"  refused at admission: {r['admission']}")
    return lines


def _member(m: dict[str, Any]) -> str:
    return m["key"] if m["kind"] == "leaf" else f"{m['key']} → {m['binds']}"


def occurs_text(occurs: dict[str, Any]) -> str:
    inputs = ", ".join(occurs["inputs"]) or "no input"
    return f"{MODE_TEXT[occurs['mode']]}, takes {inputs}"
