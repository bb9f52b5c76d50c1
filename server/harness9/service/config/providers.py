"""The provider a run's settings name, with the request limits and credentials it gets."""

from __future__ import annotations

from harness9.provider.factory import ProviderSettings, default_provider_name
from harness9.provider.limits import RequestLimits
from harness9.provider.provider_errors import ConfigError
from harness9.service.config.credentials import provider_environment
from harness9.service.config.settings import RunSettings


def provider_settings(settings: RunSettings) -> ProviderSettings:
    """The provider of a run; `ConfigError` when none is configured."""
    env = provider_environment()
    name = settings.provider or default_provider_name(env)
    if name is None:
        raise ConfigError(
            "no LLM provider is configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY (and "
            "OPENAI_BASE_URL or ANTHROPIC_BASE_URL for another compatible server; "
            "HARNESS9_PROVIDER and HARNESS9_MODEL choose between them), or use the provider "
            "\"replay\" with a script"
        )
    limits = RequestLimits(
        connect=settings.connect_timeout_ms / 1000,
        first_byte=settings.first_byte_timeout_ms / 1000,
        stream_idle=settings.stream_idle_timeout_ms / 1000,
    )
    return ProviderSettings(
        provider=name, model=settings.model, replay_file=settings.replay_file, limits=limits,
        reasoning_effort=settings.reasoning_effort, env=env,
    )
