"""The models the configured services offer (`agent/models`), asked once per daemon.

A service's own list (`models.list` of its SDK) is kept per provider and base URL; `refresh`
asks again. A service without the endpoint (a 404, as many compatible servers answer) still
offers its configured model and the `HARNESS9_MODELS` entries; a service that fails otherwise is
reported beside the others, which are still listed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from harness9.provider.factory import (
    DEFAULT_MODELS,
    base_url_of,
    create_provider,
    default_model,
    default_provider_name,
    keyed_providers,
)
from harness9.provider.llm_provider import ModelLister
from harness9.provider.model_catalog import ModelInfo
from harness9.provider.provider_errors import HTTPStatusError, ProviderError
from harness9.service.config.credentials import provider_environment
from harness9.service.config.model_choice import ModelChoice
from harness9.service.config.providers import provider_settings
from harness9.service.config.settings import RunSettings

# Ids in OpenAI's list that are not chat models (embeddings, speech, images, moderation, …).
_NOT_CHAT = re.compile(
    r"embedding|tts|whisper|dall-e|moderation|davinci|babbage|transcribe|audio|realtime"
    r"|image|search|computer-use|codex-mini-latest|sora",
    re.IGNORECASE,
)


@dataclass(slots=True)
class ModelListing:
    """The models found, and each service that could not say (provider, error)."""

    models: list[ModelInfo] = field(default_factory=list)
    errors: list[tuple[str, ProviderError]] = field(default_factory=list)


def effective_provider(settings: RunSettings, env: Mapping[str, str]) -> str | None:
    """The provider a new run uses: the setting, else the default; None when none is set up."""
    return settings.provider or default_provider_name(env)


def configured_model(settings: RunSettings, provider: str, env: Mapping[str, str]) -> str:
    """The model a run on `provider` uses when none is chosen: the settings' model for the
    provider in use, the documented default for another."""
    if provider == effective_provider(settings, env):
        return settings.model or default_model(provider, env)
    return DEFAULT_MODELS[provider]


def current_model(settings: RunSettings, chosen: ModelChoice | None) -> ModelChoice | None:
    """What a run with `settings` runs on: the session's choice, else the configured model."""
    if chosen is not None:
        return chosen
    env = provider_environment()
    provider = effective_provider(settings, env)
    if provider is None:
        return None
    model = configured_model(settings, provider, env)
    return ModelChoice(provider, model, settings.reasoning_effort)


def extra_models(env: Mapping[str, str], default: str | None) -> list[ModelInfo]:
    """`HARNESS9_MODELS`: comma-separated `provider:model`, or a bare model of `default`."""
    models: list[ModelInfo] = []
    for entry in (env.get("HARNESS9_MODELS") or "").split(","):
        entry = entry.strip()
        provider, _, model = entry.partition(":") if ":" in entry else (default, "", entry)
        if provider in DEFAULT_MODELS and model:
            models.append(ModelInfo(provider, model))
    return models


class ModelDirectory:
    """The model lists of the services, kept for the daemon's life."""

    def __init__(self) -> None:
        self._lists: dict[tuple[str, str], list[ModelInfo]] = {}

    async def listing(
        self, settings: RunSettings, only: str | None = None, refresh: bool = False
    ) -> ModelListing:
        """The models of `only`, or of every configured provider (the one in use first)."""
        env = provider_environment()
        listing = ModelListing()
        names = [only] if only is not None else self.providers(settings, env)
        found = await asyncio.gather(*(self._models(settings, n, refresh) for n in names))
        extras = extra_models(env, effective_provider(settings, env))
        for name, (models, error) in zip(names, found, strict=True):
            if error is not None:
                listing.errors.append((name, error))
            listing.models.extend(_with_extras(models, extras, name))
        return listing

    def known(self, settings: RunSettings) -> list[ModelInfo]:
        """The models known without asking any service: the lists kept so far, else each
        provider's configured model, and the `HARNESS9_MODELS` entries."""
        env = provider_environment()
        extras = extra_models(env, effective_provider(settings, env))
        models: list[ModelInfo] = []
        for name in self.providers(settings, env):
            model = configured_model(settings, name, env)
            offered = self._lists.get((name, base_url_of(name, env) or model), [])
            models.extend(_with_extras(_with_configured(name, model, offered), extras, name))
        return models

    @staticmethod
    def providers(settings: RunSettings, env: Mapping[str, str]) -> list[str]:
        """The providers worth listing: the one in use, then each whose key is set."""
        names = [effective_provider(settings, env), *keyed_providers(env)]
        return list(dict.fromkeys(name for name in names if name is not None))

    async def _models(
        self, settings: RunSettings, name: str, refresh: bool
    ) -> tuple[list[ModelInfo], ProviderError | None]:
        """The provider's models with its configured model among them, or why not."""
        env = provider_environment()
        model = configured_model(settings, name, env)
        try:
            built = create_provider(provider_settings(replace(settings, provider=name,
                                                              model=model)))
        except ProviderError as exc:
            return [], exc
        key = (name, base_url_of(name, env) or model)
        offered = self._lists.get(key) if not refresh else None
        if offered is None:
            try:
                offered = await self._ask(built)
            except ProviderError as exc:
                return [ModelInfo(name, model)], exc
            self._lists[key] = offered
        return _with_configured(name, model, offered), None

    @staticmethod
    async def _ask(provider: object) -> list[ModelInfo]:
        """The service's list: chat models only, sorted where the service does not order them;
        empty when the service has no such endpoint."""
        if not isinstance(provider, ModelLister):
            return []
        try:
            models = await provider.list_models()
        except HTTPStatusError as exc:
            if exc.status in (404, 405, 501):
                return []
            raise
        if provider.name == "openai":  # its list is unordered and mixes in non-chat models
            models = sorted((m for m in models if not _NOT_CHAT.search(m.id)), key=lambda m: m.id)
        return models


def _with_configured(provider: str, model: str, offered: list[ModelInfo]) -> list[ModelInfo]:
    """A service's list with its configured model first when the list lacks it."""
    listed = any(m.id == model for m in offered)
    return offered if listed else [ModelInfo(provider, model), *offered]


def _with_extras(models: list[ModelInfo], extras: list[ModelInfo],
                 provider: str) -> list[ModelInfo]:
    """`models` and the extra models of `provider` they lack."""
    ids = {m.id for m in models}
    return [*models, *(m for m in extras if m.provider == provider and m.id not in ids)]
