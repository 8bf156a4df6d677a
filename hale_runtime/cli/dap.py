"""`hale dap`: the debug adapter for `.hl` files, over stdio.

An editor starts it and speaks the Debug Adapter Protocol on its stdin and
stdout (docs/editors.md); each session launches one genome fn and steps it
as `hale dna debug --fn` does.
"""

from __future__ import annotations

import click


@click.command()
def dap() -> None:
    """Run the Hale debug adapter (DAP) on stdin and stdout."""
    from hale_runtime.dap.adapter import serve

    raise SystemExit(serve())
