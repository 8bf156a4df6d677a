"""Fixtures for the fence's tests: the engine's and the node's helpers, reused."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE.parent / "engine", HERE.parent / "node", HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from node_helpers import clone, make_forge, started_nodes  # noqa: E402

__all__ = ["clone", "make_forge", "started_nodes"]
