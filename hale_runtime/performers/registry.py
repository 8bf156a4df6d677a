"""Which performer an attempt goes to, chosen from the plugins by `requires`.

The first word a leaf requires selects the performer: `organism` the
organization, `edit` the editor, `human` or `person` a person. Any other word
goes capability first: `judgment` to an agent, then a person; `analysis` to
a service, then an agent; any other word to the first of service, agent,
person that offers it. A kind is used only when a plugin provides it.
"""

from __future__ import annotations

import pluggy

from hale_runtime.performers.base import ModelProvider, Performer
from hale_runtime.performers.hookspecs import PROJECT, PerformerSpec
from hale_runtime.performers.shipped import ShippedPlugin

FIXED = {"organism": "organism", "edit": "editor", "human": "person", "person": "person"}
CHAINS = {
    "judgment": ("agent", "person"),
    "analysis": ("service", "agent"),
}
DEFAULT_CHAIN = ("service", "agent", "person")


def plugin_manager(*plugins: object, entry_points: bool = True) -> pluggy.PluginManager:
    """The shipped plugin, then installed ones (entry points `hale`), then `plugins`."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(PerformerSpec)
    pm.register(ShippedPlugin(), name="hale-shipped")
    if entry_points:
        pm.load_setuptools_entrypoints(PROJECT)
    for plugin in plugins:
        pm.register(plugin)
    return pm


class Performers:
    """The performers and model provider the plugins provide, by kind."""

    def __init__(self, pm: pluggy.PluginManager | None = None):
        self.pm = pm or plugin_manager()
        self.by_kind: dict[str, Performer] = {}
        for found in self.pm.hook.hale_performers():  # newest plugin first
            for performer in found or []:
                self.by_kind.setdefault(performer.kind, performer)
        self.provider: ModelProvider = self.pm.hook.hale_model_provider()

    def get(self, kind: str) -> Performer | None:
        return self.by_kind.get(kind)

    def select(self, requires: tuple[str, ...]) -> str | None:
        """The kind of performer `requires` selects, or None when none is provided."""
        word = requires[0] if requires else ""
        if word in FIXED:
            return FIXED[word] if FIXED[word] in self.by_kind else None
        for kind in CHAINS.get(word, DEFAULT_CHAIN):
            performer = self.by_kind.get(kind)
            if performer is not None and performer.offers(word):
                return kind
        return None
