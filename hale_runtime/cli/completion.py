"""`hale completion bash|zsh|fish`: the shell script that completes `hale`.

Click completes the command line itself when the program is run with
`_HALE_COMPLETE=<shell>_source` in its environment; this verb prints that
same script (each shell's own class renders it), so a user can source it or
save it where the shell looks (docs/cli.md shows where, per shell).
"""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the script that makes SHELL complete hale's verbs and options."""
    from click.shell_completion import get_completion_class

    from hale_runtime.cli import hale

    cls = get_completion_class(shell)
    assert cls is not None  # click ships all three
    click.echo(cls(hale, {}, "hale", "_HALE_COMPLETE").source())
