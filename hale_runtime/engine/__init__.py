"""The workflow engine: executions of bound definitions as rows in the record.

    engine = Engine(record, memory, performers, budget=BudgetPolicy("day", 25_000_000))
    engine.admit(catalog.bind("close-month", inputs=...), ask="a1", convener="leader")
    engine.pump()                                # rounds until nothing moves
    engine.reply("t1/wf1/s1/post/a0", "person", "succeeded")   # a late answer
    engine.cancel("t1", by="board")              # or a relayed request (cancel.py)

The engine's state is a fold over the record (state.py); a new Engine over
the same record rebuilds it and finishes what was unfinished.
"""

from hale_runtime.engine.budget import Admission, Budget, BudgetPolicy
from hale_runtime.engine.engine import Admitted, Engine
from hale_runtime.engine.plan import Plan, plan_of
from hale_runtime.engine.state import State

__all__ = [
    "Admission",
    "Admitted",
    "Budget",
    "BudgetPolicy",
    "Engine",
    "Plan",
    "State",
    "plan_of",
]
