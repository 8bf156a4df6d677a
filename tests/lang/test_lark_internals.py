"""hale_lang/lalr.py drives Lark's parse table itself and reads a few of
Lark's private names (pinned `lark<2` in pyproject). If a Lark release moves
them, this fails first, naming what moved, rather than every parse failing
somewhere deeper."""

from __future__ import annotations

import importlib

import lark
import pytest

# (module, attribute) pairs lalr.py imports or reads
PRIVATE = [
    ("lark.parse_tree_builder", "ChildFilterLALR"),
    ("lark.parse_tree_builder", "ChildFilterLALR_NoPlaceholders"),
    ("lark.parsers.lalr_analysis", "Shift"),
]


@pytest.mark.parametrize("module, name", PRIVATE)
def test_the_private_names_lalr_uses_are_where_it_reads_them(module: str, name: str) -> None:
    found = getattr(importlib.import_module(module), name, None)
    assert found is not None, (
        f"lark {lark.__version__} has no {module}.{name}: hale_lang/lalr.py needs it; "
        "pin lark to a release that has it or port lalr.py"
    )


def test_the_parse_table_and_child_filters_have_the_shape_lalr_reads() -> None:
    from hale_lang import parser as hale_parser

    frontend = hale_parser._lark()
    inner = frontend.parser.parser.parser
    table = inner.parse_table
    for attr in ("states", "start_states", "end_states"):
        assert hasattr(table, attr), f"lark {lark.__version__}: parse table lost `{attr}`"
    filters = [c for c in inner.callbacks.values() if hasattr(c, "to_include")]
    assert filters, f"lark {lark.__version__}: no child filter carries `to_include`"
    for rule in inner.callbacks:
        assert hasattr(rule, "origin") and hasattr(rule, "expansion") and hasattr(rule, "options")
