"""An intent is admitted once: a second root for an ask whose first root
settled long ago (and left the engine's state) is refused where the engine
folds it, never run, and quarantined; the first stands."""

from __future__ import annotations

from engine_helpers import Scripted, catalog_of
from test_fence_partition import one

from hale_runtime.record import Record, kinds


def test_a_second_root_for_a_settled_ask_never_runs(org):
    service = Scripted("service")
    org.plugins = (service,)
    e = org.engine()
    e.admit(catalog_of(one).bind("one"), "ask-1", "leader")
    e.pump()
    assert e.settled("t1") == "succeeded" and "ask-1" in e.state.asks_settled
    (first,) = org.rows(kind=kinds.WORKFLOW_ADMITTED)
    late = Record.open(org.root, who="late@box:1a7e0000")  # another body, landing late
    late.append(kinds.WORKFLOW_ADMITTED, "t2", dict(first.body))
    for engine in (e, org.engine()):  # the running fold, and one from the chain's start
        engine.catch_up()
        engine.pump()
        assert "t2" not in engine.state.tasks and engine.settled("t2") is None
        poison = engine.take_poison()
        assert [why for kind, why in poison.values()] == ["ask ask-1 is admitted already, as t1"]
    assert service.acted == ["t1/wf1/s0/x/a0"]
    assert org.rows(kind=kinds.ATTEMPT_ADMITTED, prefix="t2") == []
