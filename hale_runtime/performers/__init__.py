"""Performers: who an attempt is delivered to, as pluggy plugins.

    from hale_runtime.performers import Performers, plugin_manager, hookimpl
    performers = Performers(plugin_manager(MyPlugin()))   # shipped + installed + yours
    performers.select(("judgment",))                      # -> "agent"

See base.py for what a performer is handed and answers, shipped.py for the
five the project ships, http_service.py for the service reached over HTTP,
models.py for the offline model provider.
"""

from hale_runtime.performers.base import (
    ACTED,
    CANCELLED,
    FAILED,
    NOT_ACTED,
    SUCCEEDED,
    UNKNOWN,
    Answer,
    Context,
    ModelCall,
    ModelProvider,
    Pending,
    Performer,
    Reconciled,
    Unsure,
    Work,
)
from hale_runtime.performers.hookspecs import hookimpl
from hale_runtime.performers.models import OfflineProvider
from hale_runtime.performers.registry import Performers, plugin_manager

__all__ = [
    "ACTED",
    "CANCELLED",
    "FAILED",
    "NOT_ACTED",
    "SUCCEEDED",
    "UNKNOWN",
    "Answer",
    "Context",
    "ModelCall",
    "ModelProvider",
    "OfflineProvider",
    "Pending",
    "Performer",
    "Performers",
    "Reconciled",
    "Unsure",
    "Work",
    "hookimpl",
    "plugin_manager",
]
