"""Choosing and building providers from settings and the environment."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from harness9.provider.factory import (
    DEFAULT_BASE_URLS,
    DEFAULT_MODELS,
    ProviderSettings,
    create_provider,
    default_model,
    default_provider_name,
)
from harness9.provider.provider_errors import ConfigError

FULL_ENV = {"OPENAI_API_KEY": "k1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
            "ANTHROPIC_API_KEY": "k2", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),
        ({"OPENAI_API_KEY": "k"}, "openai"),
        ({"ANTHROPIC_API_KEY": "k"}, "anthropic"),
        ({"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}, "openai"),
        ({"HARNESS9_PROVIDER": "anthropic", "OPENAI_API_KEY": "k"}, "anthropic"),
        ({"HARNESS9_PROVIDER": "replay"}, "replay"),
        ({"OPENAI_API_KEY": ""}, None),
    ],
)
def test_default_provider_name(env: dict[str, str], expected: str | None) -> None:
    assert default_provider_name(env) == expected


def test_models_default_per_provider_and_from_environment() -> None:
    for name in ("openai", "anthropic"):
        provider = create_provider(ProviderSettings(provider=name, env=FULL_ENV))
        assert (provider.name, provider.model) == (name, DEFAULT_MODELS[name])
    env = {**FULL_ENV, "HARNESS9_MODEL": "my-model"}
    assert default_model("openai", env) == "my-model"
    assert create_provider(ProviderSettings(provider="anthropic", env=env)).model == "my-model"
    explicit = ProviderSettings(provider="anthropic", model="chosen", env=env)
    assert create_provider(explicit).model == "chosen"


@pytest.mark.parametrize(
    ("provider", "missing"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_missing_variable_is_named(provider: str, missing: str) -> None:
    env = {k: v for k, v in FULL_ENV.items() if k != missing}
    with pytest.raises(ConfigError, match=missing) as caught:
        create_provider(ProviderSettings(provider=provider, env=env))
    assert caught.value.kind == "config"


@pytest.mark.parametrize(
    ("provider", "key", "url"),
    [("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
     ("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")],
)
def test_a_key_alone_talks_to_the_services_own_endpoint(
    provider: str, key: str, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = create_provider(ProviderSettings(provider=provider, env={key: "k"}))
    assert built.base_url == DEFAULT_BASE_URLS[provider]
    # ... which is where the SDK itself goes when no base URL is given.
    monkeypatch.delenv(url, raising=False)
    sdk = importlib.import_module(provider)
    client = getattr(sdk, "OpenAI" if provider == "openai" else "Anthropic")(api_key="k")
    assert str(client.base_url).rstrip("/") == DEFAULT_BASE_URLS[provider]
    env = {key: "k", url: " http://x/ "}
    assert create_provider(ProviderSettings(provider=provider, env=env)).base_url == "http://x/"


def test_unknown_provider() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        create_provider(ProviderSettings(provider="gemini", env=FULL_ENV))


def test_environment_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-os")
    assert create_provider(ProviderSettings(provider="openai")).name == "openai"
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_provider(ProviderSettings(provider="openai"))


def test_replay_script_from_setting_or_environment(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "hi"}]}))
    by_setting = create_provider(ProviderSettings(provider="replay", replay_file=str(script),
                                                  env={}))
    by_env = create_provider(ProviderSettings(provider="replay",
                                              env={"HARNESS9_REPLAY": str(script)}))
    assert by_setting.name == by_env.name == "replay"
    assert by_setting is not by_env


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read it"),
        ("{not json", "not valid JSON"),
        ('{"turns": 3}', "'turns' list"),
        ('{"turns": [{"text": 1}]}', r"turns\[0\]: text and thinking must be strings"),
        ('{"turns": [{"tool_calls": [{"arguments": {}}]}]}', r"tool_calls\[0\] must be"),
        ('{"turns": [{"usage": {"input_tokens": 1}}]}', "usage needs"),
        ('{"turns": [], "delta_chars": 0}', "delta_chars"),
        ('{"turns": [], "delta_delay_ms": -1}', "delta_delay_ms"),
    ],
)
def test_bad_replay_script(tmp_path: Path, content: str | None, message: str) -> None:
    script = tmp_path / "s.json"
    if content is not None:
        script.write_text(content)
    with pytest.raises(ConfigError, match=message):
        create_provider(ProviderSettings(provider="replay", replay_file=str(script), env={}))


def test_replay_without_script() -> None:
    with pytest.raises(ConfigError, match="HARNESS9_REPLAY"):
        create_provider(ProviderSettings(provider="replay", env={}))
