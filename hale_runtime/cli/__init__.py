"""The `hale` command line.

Subcommands are imported only when run, so `hale --help` and the verbs that
never parse stay fast (importing lark alone costs ~50 ms). Whatever a `dna`
verb meets that the runtime says in one line (`HaleRuntimeError`: a folder
that is no project, a row refused at the door, a record that cannot be
read, a lease held elsewhere) is caught once, here: `hale: <message>`, exit
the error's own `code` (hale_runtime/errors.py: 1, or 3 for a held lease).
"""

from __future__ import annotations

import importlib

import click

# command name -> "module:attribute" of a click command, loaded on demand
LANG_COMMANDS = {
    "check": "hale_runtime.cli.lang:check",
    "run": "hale_runtime.cli.lang:run",
    "fmt": "hale_runtime.cli.fmt:fmt",
    "lsp": "hale_runtime.cli.lsp:lsp",
    "dap": "hale_runtime.cli.dap:dap",
    "completion": "hale_runtime.cli.completion:completion",
}
DNA_COMMANDS: dict[str, str] = {
    "definitions": "hale_runtime.cli.definitions:definitions",
    "new": "hale_runtime.cli.new:new",
    "upgrade": "hale_runtime.cli.upgrade:upgrade",
    "history": "hale_runtime.cli.history:history",
    "memory": "hale_runtime.cli.memory:memory",
    "run": "hale_runtime.cli.node:run",
    "dev": "hale_runtime.cli.node:dev",
    "face": "hale_runtime.cli.face:face",
    "status": "hale_runtime.cli.node:status",
    "body": "hale_runtime.cli.node:body",
    "show": "hale_runtime.cli.show:show",
    "effect": "hale_runtime.cli.effect:effect",
    "schedule": "hale_runtime.cli.schedule:schedule",
    "review": "hale_runtime.cli.review:review",
    "fill": "hale_runtime.cli.fill:fill",
    "whoami": "hale_runtime.cli.keys:whoami",
    "key": "hale_runtime.cli.keys:key",
    "grant": "hale_runtime.cli.grant:grant",
    "debug": "hale_runtime.cli.debug:debug",
    "task": "hale_runtime.cli.task:task",
    "work": "hale_runtime.cli.work:work",
    "simulate": "hale_runtime.cli.simulate:simulate",
    "sense": "hale_runtime.cli.sense:sense",
    "redact": "hale_runtime.cli.redact:redact",
    "repair": "hale_runtime.cli.repair:repair",
    "sync": "hale_runtime.cli.sync:sync",
    "ledger": "hale_runtime.cli.ledger:ledger",
}


class LazyGroup(click.Group):
    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module, attr = self.lazy[name].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


class DnaGroup(LazyGroup):
    """The `dna` verbs: a `HaleRuntimeError` from any of them is one line, exit its code."""

    def invoke(self, ctx: click.Context) -> object:
        from hale_runtime.errors import HaleRuntimeError

        try:
            return super().invoke(ctx)
        except HaleRuntimeError as error:
            from hale_runtime.cli.common import fail

            fail(str(error), error.code)
        except Exception as error:  # git's or SQLite's own, on a damaged clone: one line
            from hale_runtime.cli.repair import damage_line

            said = damage_line(error)
            if said is None:
                raise
            from hale_runtime.cli.common import fail

            fail(said)


@click.group(
    cls=LazyGroup,
    lazy=LANG_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},  # every verb inherits it
)
@click.version_option(package_name="hale")
def hale() -> None:
    """hale: the Hale language and the dna organism it describes."""


@hale.group(cls=DnaGroup, lazy=DNA_COMMANDS)
def dna() -> None:
    """Run and inspect the organism of the project you are in."""
    from hale_runtime.cli.progress import install

    install()  # the record read from git at length shows a bar on a terminal


def main() -> None:
    hale(prog_name="hale")
