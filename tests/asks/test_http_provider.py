"""The OpenAI-compatible provider's configuration and pricing (no endpoint is called)."""

from __future__ import annotations

import pytest

from hale_runtime.performers import Performers, plugin_manager
from hale_runtime.performers.http_provider import (
    HttpProvider,
    ModelCallFailed,
    answer_of,
    model_plugins,
)

ENV = {"HALE_DNA_MODEL_URL": "https://models.example/v1/", "HALE_DNA_MODEL": "small"}


def test_no_url_offers_no_provider_and_the_offline_one_answers() -> None:
    assert model_plugins({}) == []
    assert (
        Performers(plugin_manager(*model_plugins({}), entry_points=False)).provider.name
        == "offline"
    )


def test_a_configured_provider_wins_over_the_offline_one() -> None:
    performers = Performers(plugin_manager(*model_plugins(ENV), entry_points=False))
    assert performers.provider.name == "http:small"
    assert performers.provider.base == "https://models.example/v1"


def test_a_flat_price_is_known_before_the_call() -> None:
    provider = HttpProvider.from_env({**ENV, "HALE_DNA_MODEL_CALL_MICROS": "2500"})
    assert provider.price("anything") == 2500
    assert provider.micros_of({"usage": {"prompt_tokens": 9999}}) == 2500


def test_a_token_price_is_known_only_from_the_answers_usage() -> None:
    env = {**ENV, "HALE_DNA_MODEL_IN_MICROS": "150", "HALE_DNA_MODEL_OUT_MICROS": "600"}
    provider = HttpProvider.from_env(env)
    assert provider.price("anything") is None
    usage = {"usage": {"prompt_tokens": 1000, "completion_tokens": 501}}
    assert provider.micros_of(usage) == 150 + 301  # rounded up


def test_the_answer_is_the_first_choice() -> None:
    doc = {"choices": [{"message": {"role": "assistant", "content": '{"kind": "person"}'}}]}
    assert answer_of(doc) == '{"kind": "person"}'
    with pytest.raises(ModelCallFailed):
        answer_of({"choices": []})
