"""Helpers the catalog tests share: the part of a listing that is not the baseline's."""

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
