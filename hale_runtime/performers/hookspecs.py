"""The pluggy hooks performers and model providers implement (project name `hale`).

A plugin returns performer objects from `hale_performers`; when two plugins
offer the same kind, the one registered last wins (pluggy calls the newest
first). `hale_model_provider` is first-result: the shipped offline provider
is registered first and marked `trylast`, so any other provider wins.
"""

from __future__ import annotations

import pluggy

PROJECT = "hale"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class PerformerSpec:
    @hookspec
    def hale_performers(self) -> list:
        """Performer objects this plugin provides."""

    @hookspec(firstresult=True)
    def hale_model_provider(self) -> object:
        """The model provider model-backed performers call."""
