"""The interface every LLM adapter implements (the seed's `LLMProvider`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol, runtime_checkable

from harness9.provider.model_catalog import ModelInfo
from harness9.schema import Message, StreamChunk, ToolDefinition, Usage


@runtime_checkable
class LLMProvider(Protocol):
    """A chat model that can call tools.

    `tools=None` means the tools parameter is not sent at all (the thinking phase); an empty
    sequence is a different request. Failures are raised as `harness9.provider.provider_errors`
    classes, never as SDK or HTTP-library exceptions.
    """

    name: str
    model: str

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        """One non-streaming call: the complete assistant message and its usage."""
        ...

    def generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        """One streaming call: `TEXT` chunks as they arrive, then one `DONE` chunk."""
        ...


# How long listing a service's models may take: a model picker must not wait for a run's limits.
LIST_TIMEOUT = 15.0


@runtime_checkable
class ModelLister(Protocol):
    """A provider that can say which models its service offers."""

    name: str
    model: str

    async def list_models(self) -> list[ModelInfo]:
        """The service's models (its `models.list`); a `ProviderError` when that fails."""
        ...
