"""`hale check --output-format`: the diagnostics in the form a tool reads.

`full` is the rustc-style rendering on stderr; the others go to stdout, one
document or one line a diagnostic: `concise` (`path:line:col: CODE message`,
as ruff prints), `json` (the shape in hale_runtime/cli/shapes.py), `sarif`
(SARIF 2.1.0, one run, one result a diagnostic) and `github` (workflow
commands, `::error file=…::message`, which GitHub Actions shows as
annotations). Paths are said from the current folder when they lie under
it. `genome_diagnostics` adds what only running the genome finds: the
catalog's refusals and a budget the host cannot keep, at their `.hl`
positions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FORMATS = ("full", "concise", "json", "sarif", "github")


def shown_path(root: Path, path: str) -> str:
    """`path` (under `root`) as a user in the current folder names it."""
    full = root / path
    try:
        return os.path.relpath(full)
    except ValueError:
        return full.as_posix()


def plain(d: Any, root: Path) -> dict[str, Any]:
    """One diagnostic as the json format writes it."""
    s = d.span
    return {
        "path": shown_path(root, s.path) if s else None,
        "line": s.line if s else None,
        "column": s.col if s else None,
        "end_line": s.end_line if s else None,
        "end_column": s.end_col if s else None,
        "code": d.code,
        "severity": d.severity,
        "message": d.message,
        "help": d.help,
    }


def render(fmt: str, found: list[dict[str, Any]], files: int) -> str:
    """The text the format prints on stdout for these (plain) diagnostics."""
    errors = sum(d["severity"] == "error" for d in found)
    if fmt == "json":
        doc = {"files": files, "errors": errors, "warnings": len(found) - errors, "diagnostics": found}  # fmt: skip
        return json.dumps(doc, indent=2, ensure_ascii=False)
    if fmt == "sarif":
        return json.dumps(_sarif(found), indent=2, ensure_ascii=False)
    if fmt == "github":
        return "\n".join(_github(d) for d in found)
    return "\n".join(_concise(d) for d in found)


def _at(d: dict[str, Any]) -> str:
    if d["path"] is None:
        return "hale"
    return f"{d['path']}:{d['line']}:{d['column']}"


def _concise(d: dict[str, Any]) -> str:
    tail = f" (help: {d['help']})" if d["help"] else ""
    return f"{_at(d)}: {d['code']} [{d['severity']}] {d['message']}{tail}"


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github(d: dict[str, Any]) -> str:
    level = "error" if d["severity"] == "error" else "warning"
    props = [f"title={_escape(d['code'], True)}"]
    if d["path"] is not None:
        props = [
            f"file={_escape(d['path'], True)}",
            f"line={d['line']}",
            f"col={d['column']}",
            f"endLine={d['end_line']}",
            f"endColumn={d['end_column']}",
            *props,
        ]
    message = d["message"] + (f"\n{d['help']}" if d["help"] else "")
    return f"::{level} {','.join(props)}::{_escape(message)}"


def _sarif(found: list[dict[str, Any]]) -> dict[str, Any]:
    results = []
    for d in found:
        result: dict[str, Any] = {
            "ruleId": d["code"],
            "level": "error" if d["severity"] == "error" else "warning",
            "message": {"text": d["message"] + (f" (help: {d['help']})" if d["help"] else "")},
        }
        if d["path"] is not None:
            region = {"startLine": d["line"], "startColumn": d["column"],
                      "endLine": d["end_line"], "endColumn": d["end_column"]}  # fmt: skip
            location = {"artifactLocation": {"uri": Path(d["path"]).as_posix()}, "region": region}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    rules = [{"id": code} for code in sorted({d["code"] for d in found})]
    driver = {"name": "hale", "informationUri": "https://github.com/hale-lang/hale", "rules": rules}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def genome_diagnostics(root: Path) -> list[Any]:
    """The catalog's refusals and the budget's, when `root` holds a genome
    (dna/org/workflows.hl) that builds: diagnostics at their `.hl` positions."""
    from hale_lang.diagnostics import Diagnostic, HaleError, Span
    from hale_runtime.catalog.load import ENTRY, GenomeError, load_document

    if not (root / ENTRY).is_file():
        return []
    out = _budget(root)
    if out:
        return out
    try:
        doc = load_document(root)
    except (GenomeError, HaleError):
        return []  # its own diagnostics are the build's, said already
    for r in doc["refusals"]:
        path, _, rest = str(r["at"]).partition(":")
        line, _, col = rest.partition(":")
        span = None
        if line.isdigit() and col.isdigit():
            span = Span(path, int(line), int(col), int(line), int(col) + 1)
        msg = f"the catalog refuses {r['definition']}: {r['reason']}"
        help = "`hale dna definitions` lists the catalog and what it refused"
        out.append(Diagnostic("E0505", msg, span, help))
    return out


def _budget(root: Path) -> list[Any]:
    """A budget `org_budget()` returns that the host cannot keep, at its field."""
    from hale_lang.diagnostics import Diagnostic, HaleError
    from hale_runtime.engine import budget

    if not (root / budget.MODELS).is_file():
        return []
    try:
        budget.policy_from_genome(root)
    except budget.BudgetRefused as refused:
        from hale_lang import nodes as n
        from hale_lang.cache import ParseCache

        text = (root / budget.MODELS).read_text(encoding="utf-8")
        module = ParseCache.default().parse(text, budget.MODELS)
        fn = next((i for i in module.items if isinstance(i, n.FnDecl) and i.name == "org_budget"), None)  # fmt: skip
        field = "allowance_micros" if "allowance" in str(refused) else "window"
        span = budget._field_value(fn.body, field) if fn is not None else None
        if span is None and fn is not None:
            span = fn.name_span
        help = 'a budget window is "day", "week" or "none", and an allowance 0 or more'
        return [Diagnostic("E0504", f"the host refuses this budget: {refused}", span, help)]
    except HaleError:
        return []
    return []
