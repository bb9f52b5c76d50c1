"""Builds the provider a run asks for, from settings and the environment.

API keys and base URLs come only from the environment:

| provider  | variables                                           | default model       |
|-----------|-----------------------------------------------------|---------------------|
| openai    | `OPENAI_API_KEY`; `OPENAI_BASE_URL` optional        | `gpt-5.4-mini`      |
| anthropic | `ANTHROPIC_API_KEY`; `ANTHROPIC_BASE_URL` optional  | `claude-sonnet-4-6` |
| replay    | the script: `replay_file`, else `HARNESS9_REPLAY`   | `replay`            |

Without a base URL a provider talks to its service's own endpoint, as the SDKs do by default
(`DEFAULT_BASE_URLS`); set one for any compatible server.

`HARNESS9_MODEL` overrides the default model; `model` in the settings overrides both. The
default provider is `HARNESS9_PROVIDER`, else the first of openai/anthropic whose API key is set.
Building a provider does no network IO and imports no SDK; every configuration problem is a
`ConfigError` naming the variable or setting, raised before any request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from harness9.provider.anthropic import AnthropicProvider
from harness9.provider.endpoints import DEFAULT_BASE_URLS, KEY_VARIABLES, URL_VARIABLES
from harness9.provider.limits import DEFAULT_LIMITS, RequestLimits
from harness9.provider.llm_provider import LLMProvider
from harness9.provider.openai import OpenAIProvider
from harness9.provider.provider_errors import ConfigError
from harness9.provider.replay import ReplayProvider, load_script
from harness9.redaction import remember_secret

PROVIDERS = ("openai", "anthropic", "replay")
DEFAULT_MODELS = {"openai": "gpt-5.4-mini", "anthropic": "claude-sonnet-4-6", "replay": "replay"}
DEFAULT_MAX_TOKENS = 8192
_KEYS = KEY_VARIABLES
_URLS = URL_VARIABLES
# The variables holding provider credentials: tool processes never get them.
CREDENTIAL_VARIABLES = tuple(_KEYS.values())


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """What a run needs from its provider. `limits` bound the waits of each model call (connect,
    first byte, stream idle); `max_retries` is the SDK's retry count for 408/409/429/5xx and
    connection errors; `max_tokens` is sent to Anthropic (it requires one)."""

    provider: str
    model: str | None = None
    max_retries: int = 2
    max_tokens: int = DEFAULT_MAX_TOKENS
    limits: RequestLimits = DEFAULT_LIMITS
    replay_file: str | None = None
    reasoning_effort: str | None = None  # low | medium | high
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)


def default_provider_name(env: Mapping[str, str] | None = None) -> str | None:
    """`HARNESS9_PROVIDER`, else the first of openai/anthropic whose API key is set, else None."""
    env = os.environ if env is None else env
    if env.get("HARNESS9_PROVIDER"):
        return env["HARNESS9_PROVIDER"]
    return next((name for name, key in _KEYS.items() if env.get(key)), None)


def keyed_providers(env: Mapping[str, str]) -> list[str]:
    """The services whose API key is set, openai first."""
    return [name for name, key in _KEYS.items() if env.get(key, "").strip()]


def key_variable(provider: str) -> str | None:
    """The variable holding the provider's API key (None for replay)."""
    return _KEYS.get(provider)


def base_url_of(provider: str, env: Mapping[str, str]) -> str | None:
    """The base URL the provider talks to (its variable, else the service's own)."""
    if provider not in _URLS:
        return None
    return env.get(_URLS[provider], "").strip() or DEFAULT_BASE_URLS[provider]


def default_model(provider: str, env: Mapping[str, str] | None = None) -> str:
    """`HARNESS9_MODEL` if set, else the provider's documented default."""
    env = os.environ if env is None else env
    return env.get("HARNESS9_MODEL") or DEFAULT_MODELS[provider]


def create_provider(settings: ProviderSettings) -> LLMProvider:
    """A fresh provider for one run; raises `ConfigError` on any configuration problem."""
    name = settings.provider
    if name not in PROVIDERS:
        raise ConfigError(f"unknown provider {name!r}: expected one of {', '.join(PROVIDERS)}")
    model = settings.model or default_model(name, settings.env)
    if name == "replay":
        return _replay(settings, model)
    api_key = _required(settings.env, _KEYS[name], name)
    base_url = base_url_of(name, settings.env) or DEFAULT_BASE_URLS[name]
    if name == "openai":
        return OpenAIProvider(api_key=api_key, base_url=base_url, model=model,
                              max_retries=settings.max_retries, limits=settings.limits,
                              reasoning_effort=settings.reasoning_effort)
    return AnthropicProvider(api_key=api_key, base_url=base_url, model=model,
                             max_tokens=settings.max_tokens, max_retries=settings.max_retries,
                             limits=settings.limits, reasoning_effort=settings.reasoning_effort)


def _required(env: Mapping[str, str], variable: str, provider: str) -> str:
    value = env.get(variable, "").strip()
    if not value:
        raise ConfigError(f"{variable} is not set: the {provider} provider needs it")
    remember_secret(value)  # whatever its source: a service may echo it in an error
    return value


def _replay(settings: ProviderSettings, model: str) -> LLMProvider:
    path = settings.replay_file or settings.env.get("HARNESS9_REPLAY")
    if not path:
        raise ConfigError("the replay provider needs a script: set replayFile or HARNESS9_REPLAY")
    return ReplayProvider(load_script(path), model=model)
