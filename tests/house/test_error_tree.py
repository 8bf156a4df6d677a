"""One error tree: every exception the runtime lets out derives from
HaleRuntimeError and carries its exit code, and the `dna` group says each in
one line with that code.

The test imports every module of hale_runtime, collects the exception
classes each defines, and holds them against the tree; the few that never
leave their module stand in INTERNAL with why, and the CLI may not name them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import hale_runtime
from hale_runtime import errors
from hale_runtime.cli import DnaGroup

CLI = Path(hale_runtime.__file__).parent / "cli"

# exceptions that never leave the module that raises them -> why
INTERNAL = {
    "hale_runtime.engine.advance.Stuck": "the advance loop's own signal, caught by the engine",
    "hale_runtime.memory.projection.ProjectionDiverged": "the host resets the projection on it",
    "hale_runtime.memory.store._NotMoved": "a swap that lost, retried inside the store",
    "hale_runtime.node.stopping.NodeStop": "the host's way out of its loop: it becomes an exit code",
    "hale_runtime.performers.http_service.NotSent": "a request not sent, answered as unknown",
    "hale_runtime.record.loose_ref.Locked": "a ref lock held, retried inside the loose store",
    "hale_runtime.tui.stepping.TraceFull": "a trace at its cap, shown in the TUI",
}


def exception_classes() -> dict[str, type[BaseException]]:
    found = {}
    for info in pkgutil.walk_packages(hale_runtime.__path__, "hale_runtime."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found[f"{info.name}.{value.__qualname__}"] = value
    return found


@pytest.fixture(scope="module")
def classes() -> dict[str, type[BaseException]]:
    return exception_classes()


def test_every_exception_that_leaves_its_module_is_under_hale_runtime_error(classes):
    outside = sorted(
        name
        for name, cls in classes.items()
        if not issubclass(cls, errors.HaleRuntimeError) and name not in INTERNAL
    )
    assert not outside, (
        f"derive these from hale_runtime.errors (or list them as INTERNAL): {outside}"
    )
    assert set(INTERNAL) <= set(classes), "an INTERNAL entry names no class: remove it"


def test_the_cli_names_no_internal_exception():
    internal = {name.rpartition(".")[2] for name in INTERNAL}
    named = set()
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name | ast.alias):
                named.add((path.name, getattr(node, "id", None) or node.name.rpartition(".")[2]))
    crossing = sorted((file, name) for file, name in named if name in internal)
    assert not crossing, f"the CLI handles internal exceptions: {crossing}"


def test_the_lease_held_elsewhere_exits_3_and_a_setting_2(classes):
    assert classes["hale_runtime.node.lease.LeaseHeld"].code == errors.EXIT_LEASE_HELD == 3
    assert classes["hale_runtime.ledger.keeper.LedgerHeld"].code == 3
    assert classes["hale_runtime.node.settings.SettingsError"].code == errors.EXIT_USAGE
    from hale_runtime.catalog import Refused

    assert Refused is errors.Refused  # one Refused, not the catalog's own


def _raising(error: BaseException) -> click.Group:
    group = DnaGroup(name="dna", lazy={})

    @group.command("boom")
    def boom() -> None:
        raise error

    return group


def _made(cls: type[BaseException], message: str) -> BaseException:
    error = cls.__new__(cls)  # whatever its own __init__ takes, with this message
    Exception.__init__(error, message)
    return error


def test_the_group_says_each_error_in_one_line_with_its_code(classes):
    tree = [c for c in classes.values() if issubclass(c, errors.HaleRuntimeError)]
    assert len(tree) > 20
    for cls in tree:
        said = CliRunner().invoke(_raising(_made(cls, "it went wrong")), ["boom"])
        assert (said.exit_code, said.output) == (cls.code, "hale: it went wrong\n"), cls


@given(st.text(st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1))
def test_the_group_prints_the_message_it_was_given(message):
    said = CliRunner().invoke(_raising(errors.Refused(message)), ["boom"])
    assert said.exit_code == 1
    assert said.output == f"hale: {message}\n"
