"""The catalog as the engine calls it: bind whole, newest for new work,
older revisions resolvable, inputs given. Built through the host binding
directly, with call sites said by `callsite.override`."""

from __future__ import annotations

import pytest

from hale_runtime.catalog import Refused, WorkflowCatalog
from hale_runtime.catalog.callsite import override


def work(objective: str, requires: str = "analysis") -> dict[str, str]:
    return {"objective": objective, "requires": requires}


def catalog_of(build) -> object:
    host = WorkflowCatalog()
    with override("dna/org/own_workflows.hl:1:1"):
        build(host)
    return host.seal("dna/org/workflows.hl")


def close_month(c, rev: int, steps: int = 2) -> None:
    assert c.define("close-month", rev, " ".join(["record"] * steps), f"close, rev {rev}") == ""
    for s in range(steps):
        assert c.leaf("close-month", rev, s, f"s{s}", work("close {period}"), 1) == ""
    assert c.occurs("close-month", rev, "skip", "period") == ""


def test_newest_revision_binds_new_work_and_older_stay_resolvable():
    def build(c):
        close_month(c, 1)
        close_month(c, 2, steps=3)

    cat = catalog_of(build)
    assert cat.bind("close-month").definition.rev == 2
    assert len(cat.bind("close-month", 1).definition.steps) == 2
    with pytest.raises(Refused, match="has no revision 3"):
        cat.bind("close-month", 3)


def test_an_unknown_name_is_refused():
    cat = catalog_of(lambda c: close_month(c, 1))
    with pytest.raises(Refused, match="no workflow nope in the catalog"):
        cat.bind("nope")


def test_inputs_must_all_be_given_and_fill_the_objectives():
    cat = catalog_of(lambda c: close_month(c, 1))
    with pytest.raises(Refused, match="takes period"):
        cat.bind("close-month", inputs={})
    bound = cat.bind("close-month", inputs={"period": "2026-11"})
    leaf = bound.definition.steps[0].members[0]
    assert bound.objective(leaf) == "close 2026-11"


def test_children_bind_with_the_tree():
    def build(c):
        close_month(c, 1)
        assert c.define("quarter", 1, "record", "a quarter") == ""
        assert c.child("quarter", 1, 0, "m1", "close-month") == ""
        assert c.child("quarter", 1, 0, "m2", "close-month@1") == ""

    cat = catalog_of(build)
    bound = cat.bind("quarter", inputs={"period": "q4"})
    assert bound.child(0, "m1").definition.name == "close-month@1"
    assert cat.definitions[("quarter", 1)].units == 4
    assert cat.definitions[("quarter", 1)].depth == 2


def test_a_definition_refused_at_admission_does_not_bind():
    def build(c):
        assert c.define("ship", 1, "heart", "ship it") == ""
        assert c.leaf("ship", 1, 0, "go", work("go", "organism"), 1) == ""

    cat = catalog_of(build)
    with pytest.raises(Refused, match="writes the heart"):
        cat.bind("ship")


def test_a_refused_definition_is_left_out_whole():
    def build(c):
        assert c.define("p", 1, "record record", "p") == ""
        assert c.leaf("p", 1, 0, "ok", work("ok"), 1) == ""
        assert c.leaf("p", 1, 1, "Bad", work("bad"), 1).startswith("refused p@1: ")
        assert c.leaf("p", 1, 1, "fine", work("fine"), 1).startswith("refused p@1: ")

    cat = catalog_of(build)
    assert ("p", 1) not in cat.definitions
    assert len(cat.refusals) == 1
    with pytest.raises(Refused, match="refused by the catalog at dna/org/own_workflows.hl:1:1"):
        cat.bind("p")
