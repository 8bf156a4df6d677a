"""The performers as plugins: the shipped five, the offline model provider,
and a plugin's performer or provider taking the place of the shipped one."""

from __future__ import annotations

from engine_helpers import Scripted

from hale_runtime.performers import OfflineProvider, Performers, hookimpl, plugin_manager


def test_the_shipped_plugin_provides_five_performers_and_the_offline_provider():
    performers = Performers(plugin_manager(entry_points=False))
    assert sorted(performers.by_kind) == ["agent", "editor", "organism", "person", "service"]
    assert isinstance(performers.provider, OfflineProvider)


def test_the_offline_provider_answers_from_the_prompts_words_at_a_fixed_price():
    provider = OfflineProvider()
    first = provider.complete("Reconcile the bank feed for November, the bank feed")
    assert first == ("considered: reconcile november bank feed for the", 1_000)
    assert provider.complete("Reconcile the bank feed for November, the bank feed") == first
    assert provider.price("anything") == 1_000


def test_a_plugins_performer_and_provider_win_over_the_shipped_ones():
    class Provider:
        name = "mine"

        @hookimpl
        def hale_model_provider(self):
            return self

    mine = Scripted("agent")
    performers = Performers(plugin_manager(mine, Provider(), entry_points=False))
    assert performers.get("agent") is mine
    assert performers.provider.name == "mine"
    assert performers.select(("judgment",)) == "agent"
