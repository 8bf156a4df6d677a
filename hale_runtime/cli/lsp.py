"""`hale lsp`: the language server for `.hl` files, over stdio.

An editor starts it and speaks LSP on its stdin and stdout
(docs/editors.md); it serves every genome whose files the editor opens.
The organization's admission (the catalog's and the budget's refusals) is
the runtime's, handed to the server here: hale_lang does not import
hale_runtime.
"""

from __future__ import annotations

import click


@click.command()
@click.option(
    "--stdio",
    is_flag=True,
    help="Speak on stdin and stdout (the default; for editors that pass it).",
)
def lsp(stdio: bool) -> None:
    """Run the Hale language server on stdin and stdout."""
    from hale_runtime.cli.common import fail
    from hale_runtime.extras import missing

    if missing("lsp"):
        fail(missing("lsp"))
    from hale_lang.lsp.server import serve
    from hale_runtime.catalog.admission import organization_diagnostics

    serve(admission=organization_diagnostics)
