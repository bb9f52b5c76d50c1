"""The request limits (connect, first byte, stream idle) through the real SDKs, against a fake
service that hangs, stalls or trickles keep-alives on loopback."""

from __future__ import annotations

import importlib
import socket
import time
from collections.abc import Iterator

import pytest

from harness9.provider.factory import ProviderSettings, create_provider
from harness9.provider.limits import RequestLimits
from harness9.provider.llm_provider import LLMProvider
from harness9.provider.provider_errors import NetworkError
from harness9.schema import Message
from tests.fakellm import Fail, FakeLLM, Hang, Reply
from tests.provider.conftest import ask, make_provider

pytestmark = pytest.mark.timeout(20)

PROMPT = [Message.user("hello")]
FIRST_BYTE = "no first byte from the model within 0.5 s (firstByteTimeoutMs)"
IDLE = "the model sent nothing for 0.4 s (streamIdleTimeoutMs)"
LIMITS = RequestLimits(connect=1.0, first_byte=0.5, stream_idle=0.4)
# Events of a stream up to and including its first text delta: OpenAI's role chunk and one
# piece; Anthropic's message_start, ping, content_block_start and one text_delta.
FIRST_TEXT = {"openai": 2, "anthropic": 4}


async def warmed(fake: FakeLLM, wire: str) -> LLMProvider:
    """A provider with `LIMITS` that has made one call, so its SDK is imported and its client
    built (seconds on a busy machine, before any limit applies) when the timing starts."""
    fake.script([Reply("warm")])
    provider = make_provider(fake, wire, limits=LIMITS)  # the SDK's 2 retries stay on
    await ask(provider, PROMPT, stream=False)
    return provider


async def failure(provider_call: object) -> tuple[NetworkError, float]:
    """The NetworkError an awaited call raises, and how long it took."""
    started = time.monotonic()
    with pytest.raises(NetworkError) as caught:
        await provider_call  # type: ignore[misc]
    return caught.value, time.monotonic() - started


async def test_a_service_that_never_answers_fails_at_the_first_byte_limit(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    provider = await warmed(fake_llm, wire)
    fake_llm.script([Hang(), Hang(), Hang()])
    error, took = await failure(ask(provider, PROMPT, stream=stream))
    assert error.kind == "network"
    assert error.message == f"{wire}: {FIRST_BYTE}"
    assert 0.45 < took < 1.5
    assert len(fake_llm.requests) == 2  # the warm-up and one: the limit is for the call


async def test_headers_then_only_keepalives_fails_at_the_first_byte_limit(
    fake_llm: FakeLLM, wire: str
) -> None:
    # The keep-alives restart the HTTP library's read timeout; they are no answer.
    provider = await warmed(fake_llm, wire)
    fake_llm.script([Reply("never sent", stall_after=0, keepalive=0.05)])
    error, took = await failure(ask(provider, PROMPT, stream=True))
    assert error.message == f"{wire}: {FIRST_BYTE}"
    assert 0.45 < took < 1.5


async def test_a_stream_that_stalls_after_its_first_chunk_fails_at_the_idle_limit(
    fake_llm: FakeLLM, wire: str
) -> None:
    # A first-byte limit far beyond the idle limit: the idle limit alone must end the call.
    fake_llm.script([Reply("warm")])
    limits = RequestLimits(connect=1.0, first_byte=5.0, stream_idle=0.4)
    provider = make_provider(fake_llm, wire, limits=limits)
    await ask(provider, PROMPT, stream=False)
    fake_llm.script([Reply("hello world", stall_after=FIRST_TEXT[wire], keepalive=0.05)])
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in provider.generate_stream(PROMPT, None):
            seen.append(chunk.text)

    error, took = await failure(consume())
    assert error.message == f"{wire}: {IDLE}"
    assert seen == ["hel"]
    assert 0.35 < took < 1.5
    assert len(fake_llm.requests) == 2


async def test_a_slow_stream_with_short_gaps_outlives_both_limits(
    fake_llm: FakeLLM, wire: str
) -> None:
    # About a second in all, more than either limit, but never 0.4 s without an event.
    fake_llm.script([Reply("x" * 6, chunk_chars=1, chunk_delay=0.1, first_byte_delay=0.3)])
    answer = await ask(make_provider(fake_llm, wire, limits=LIMITS), PROMPT, stream=True)
    assert answer.message.content == "x" * 6


async def test_quick_failures_are_still_retried_within_the_first_byte_limit(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.script([Fail(500), Reply("second try", first_byte_delay=0.2)])
    answer = await ask(make_provider(fake_llm, wire, limits=LIMITS), PROMPT, stream=stream)
    assert answer.message.content == "second try"


@pytest.fixture
def unanswered_port() -> Iterator[int]:
    """A loopback port whose connections never complete: a listener with a full accept queue
    that never accepts (Linux then drops further handshakes)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    time.sleep(0.05)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


async def test_a_connection_that_never_completes_fails_at_the_connect_limit(
    unanswered_port: int, wire: str
) -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": f"http://127.0.0.1:{unanswered_port}/v1",
           "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{unanswered_port}"}
    limits = RequestLimits(connect=0.3, first_byte=5.0, stream_idle=5.0)
    provider = create_provider(ProviderSettings(provider=wire, max_retries=0, limits=limits,
                                                env=env))
    importlib.import_module(wire)  # the SDK's import is not part of the timing
    error, took = await failure(ask(provider, PROMPT, stream=True))
    assert error.message.startswith(f"{wire}: could not connect within 0.3 s (connectTimeoutMs); "
                                    "tried http://")
    assert 0.25 < took < 2
