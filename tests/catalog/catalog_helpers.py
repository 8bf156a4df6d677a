"""Helpers the catalog tests share: the part of a listing that is not the
baseline's, and the seed's own close-month (the spine's tests run it too)."""

from __future__ import annotations

import textwrap


def own_source(body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return (
        'import "vendor/dna" as dna;\n\n'
        "fn own_workflows(catalog: dna::WorkflowCatalog) -> String {\n"
        f"{body}\n"
        "}\n"
    )


LAST_BASELINE = "body-provision@1"

# the body of own_workflows in the spine seed: close-month, reconcile then post
CLOSE_MONTH = """
let d = catalog.define("close-month", 1, "record record", "close the month");
if len(d) > 0 { return d; }
let a = catalog.leaf("close-month", 1, 0, "reconcile", dna::WorkRequest { objective: "reconcile the bank feed", requires: "analysis" }, 2);
if len(a) > 0 { return a; }
let b = catalog.leaf("close-month", 1, 1, "post", dna::WorkRequest { objective: "post the journal entries", requires: "human" }, 1);
if len(b) > 0 { return b; }
return catalog.occurs("close-month", 1, "skip", "period");
"""


def own_part(out: str) -> str:
    """The lines of a listing that are not the baseline's: what it leads
    with, and every definition after the baseline's last."""
    lines = out.splitlines()
    start = lines.index("catalog dna/org/workflows.hl")
    i = next(n for n, line in enumerate(lines) if line.startswith(LAST_BASELINE))
    i += 1
    while i < len(lines) and lines[i].startswith("  "):
        i += 1
    return "\n".join(lines[:start] + ["…"] + lines[i:]) + "\n"
