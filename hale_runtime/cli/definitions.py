"""`hale dna definitions [--json]`: the workflow catalog, as the genome builds it.

Finds the project upward, loads the catalog's document (cached by the
genome's content: hale_runtime/catalog/load.py) and prints it as text (the
seed's listing) or as the document itself. Exit 1 when the genome does not
build (its diagnostics on stderr) or when the catalog refused a call, which
the listing leads with.
"""

from __future__ import annotations

import click

from hale_runtime.cli.common import EXIT_REFUSED


@click.command("definitions")
@click.option("--json", "as_json", is_flag=True, help="print the catalog's own document")
def definitions(as_json: bool) -> None:
    """List the workflow catalog: each definition's steps, stores and refusals."""
    from hale_runtime.catalog.load import GenomeError, load_document
    from hale_runtime.project import find_root

    root = find_root()
    try:
        doc = load_document(root)
    except GenomeError as exc:
        click.echo(exc.text, err=True)
        raise SystemExit(EXIT_REFUSED) from None
    if as_json:
        import json

        click.echo(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False))
    else:
        from hale_runtime.catalog.render import text

        click.echo(text(doc))
    if doc["refusals"] or doc["returned"]:
        raise SystemExit(EXIT_REFUSED)
