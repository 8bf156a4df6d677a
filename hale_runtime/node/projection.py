"""The projection moved below the node, to memory (hale_runtime/memory/projection.py):
schedules' simulation projects too, and may not import the node. This name stays
only for node/host.py, until that file imports memory.projection itself."""

from hale_runtime.memory.projection import ProjectionDiverged, project

__all__ = ["ProjectionDiverged", "project"]
