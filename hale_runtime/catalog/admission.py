"""What only the organization refuses, as diagnostics at their `.hl` positions.

`hale check` and the language server see the language's errors; the
catalog's admission and the budget's policy are decided by running the
genome's own code, as `hale dna definitions` does (load.py). This runs
that code the same way and turns each refusal into a Diagnostic:

- every call the catalog refused (`Refusal.at` is the `path:line:col` of
  the Hale call, found by callsite.py), as E0601, at that call;
- `workflows` returning something other than "" (and nothing refused), as
  E0602, at the `workflows` fn;
- a budget the host cannot keep (engine/budget.py's `org_budget()`
  refusal), as E0504, at the `window:` or `allowance_micros:` field.

A genome that does not build gives none of these: its language errors come
first, from the checker, and nothing of it can run.
"""

from __future__ import annotations

import re
from pathlib import Path

from hale_lang.diagnostics import Diagnostic, HaleError, Span

_AT = re.compile(r"(.+\.hl):(\d+):(\d+)\Z")
CATALOG_HELP = "`hale dna definitions` lists the catalog and every refusal"


def organization_diagnostics(root: Path) -> list[Diagnostic]:
    """The catalog's and the budget's refusals of the genome at `root`."""
    root = Path(root).resolve()
    return _catalog(root) + _budget(root)


def _catalog(root: Path) -> list[Diagnostic]:
    from hale_lang.build import build
    from hale_runtime.catalog.load import ENTRY, ENTRY_FN, HOST_KEY, _host_type

    if not (root / ENTRY).is_file():
        return []
    host_type = _host_type()
    host = host_type()
    try:
        program = build(root, [ENTRY], bindings={HOST_KEY: host_type})
        returned = program.call(ENTRY, ENTRY_FN, host)
    except HaleError:
        return []
    catalog = host.seal(ENTRY)
    out = []
    for r in catalog.refusals:
        span = _span(root, r.at)
        if span is not None:
            message = f"the catalog refuses {r.definition}: {r.reason}"
            out.append(Diagnostic("E0601", message, span, CATALOG_HELP))
    if isinstance(returned, str) and returned and not catalog.refusals:
        fn = _fn_span(root, ENTRY, ENTRY_FN)
        message = f"`{ENTRY_FN}` returned {returned!r}, not a refusal the catalog made"
        out.append(Diagnostic("E0602", message, fn, 'return "" when everything binds'))
    return out


def _budget(root: Path) -> list[Diagnostic]:
    from hale_runtime.engine.budget import MODELS, BudgetRefused, policy_from_genome

    if not (root / MODELS).is_file():
        return []
    try:
        policy_from_genome(root)
    except BudgetRefused as refused:
        return [refused.diagnostic] if refused.diagnostic is not None else []
    except HaleError:
        return []
    return []


def _span(root: Path, at: str) -> Span | None:
    """`path:line:col` of a call as a span over its callee (`catalog.leaf`)."""
    m = _AT.match(at)
    if m is None:
        return None
    path, line, col = m.group(1), int(m.group(2)), int(m.group(3))
    try:
        text = (root / path).read_text(encoding="utf-8-sig").splitlines()[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        text = ""
    callee = re.match(r"[\w.:]+", text[col - 1 :])
    return Span(path, line, col, line, col + (len(callee.group()) if callee else 1))


def _fn_span(root: Path, module: str, fn: str) -> Span:
    from hale_lang import nodes as n
    from hale_lang.cache import ParseCache

    tree = ParseCache.default().parse((root / module).read_text(encoding="utf-8-sig"), module)
    for item in tree.items:
        if isinstance(item, n.FnDecl) and item.name == fn:
            return item.name_span
    return Span(module, 1, 1, 1, 1)
