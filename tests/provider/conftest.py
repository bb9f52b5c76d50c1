"""Providers built on the real SDKs, pointed at the loopback fake LLM."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from harness9.provider.factory import ProviderSettings, create_provider
from harness9.provider.llm_provider import LLMProvider
from harness9.schema import Message, StreamChunkType, ToolDefinition, Usage
from tests.fakellm import FakeLLM
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]

WIRES = ("openai", "anthropic")

TOOLS = (
    ToolDefinition(
        name="read_file",
        description="Read a file of the workspace.",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "relative path"}},
            "required": ["path"],
        },
    ),
    ToolDefinition(
        name="bash",
        description="Run a bash command.",
        input_schema={
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    ),
)

MakeProvider = Callable[..., LLMProvider]


def make_provider(fake: FakeLLM, wire: str, **options: object) -> LLMProvider:
    """A provider of `wire` talking to `fake` (options go to `ProviderSettings`)."""
    settings = ProviderSettings(provider=wire, model="fake-model", env=fake.env(), **options)
    return create_provider(settings)


@dataclass
class Answer:
    """What one provider call produced."""

    message: Message
    usage: Usage
    deltas: list[str]


async def ask(
    provider: LLMProvider,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] | None = TOOLS,
    *,
    stream: bool,
) -> Answer:
    """Call `provider` once, streaming or not; checks the stream's shape on the way."""
    if not stream:
        message, usage = await provider.generate(messages, tools)
        return Answer(message, usage, [])
    chunks = [chunk async for chunk in provider.generate_stream(messages, tools)]
    assert [c.type for c in chunks[:-1]] == [StreamChunkType.TEXT] * (len(chunks) - 1)
    done = chunks[-1]
    assert done.type is StreamChunkType.DONE
    assert done.message is not None
    return Answer(done.message, done.usage, [c.text for c in chunks[:-1]])


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    """Each test runs against both wire formats."""
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["json", "stream"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Each test runs non-streaming and streaming."""
    return bool(request.param)
