"""SDK failures become `harness9.provider.provider_errors` classes, SDK retries still on."""

from __future__ import annotations

import asyncio
import socket

import pytest

from harness9.provider.factory import ProviderSettings, create_provider
from harness9.provider.provider_errors import (
    AuthError,
    HTTPStatusError,
    MalformedResponseError,
    ModelNotFoundError,
    NetworkError,
    RateLimitError,
)
from harness9.schema import Message
from tests.fakellm import Drop, Fail, FakeLLM, Reply
from tests.provider.conftest import ask, make_provider

PROMPT = [Message.user("hello")]


async def test_server_error_then_success_is_retried(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.script([Fail(500), Fail(503), Reply("recovered")])
    answer = await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    assert answer.message.content == "recovered"
    assert [r.headers["x-stainless-retry-count"] for r in fake_llm.requests] == ["0", "1", "2"]


async def test_unauthorized_fails_fast(fake_llm: FakeLLM, wire: str, stream: bool) -> None:
    fake_llm.script([Fail(401, "invalid x-api-key"), Reply("never")])
    with pytest.raises(AuthError) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    assert caught.value.kind == "auth"
    assert caught.value.status == 401
    assert "invalid x-api-key" in caught.value.message
    assert len(fake_llm.requests) == 1  # no retry


async def test_rate_limit_after_retries(fake_llm: FakeLLM, wire: str, stream: bool) -> None:
    fake_llm.script([Fail(429)] * 3)
    with pytest.raises(RateLimitError) as caught:
        await ask(make_provider(fake_llm, wire, max_retries=2), PROMPT, stream=stream)
    assert caught.value.kind == "rate_limit"
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize(("status", "requests"), [(400, 1), (404, 1), (500, 2), (529, 2)])
async def test_other_status_carries_the_code(
    fake_llm: FakeLLM, wire: str, status: int, requests: int
) -> None:
    fake_llm.script([Fail(status, "nope")] * requests)
    with pytest.raises(HTTPStatusError) as caught:
        await ask(make_provider(fake_llm, wire, max_retries=1), PROMPT, stream=False)
    assert (caught.value.kind, caught.value.status) == ("http", status)
    assert f"HTTP {status}" in str(caught.value)
    assert len(fake_llm.requests) == requests


async def test_forbidden_is_auth(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Fail(403)])
    with pytest.raises(AuthError):
        await ask(make_provider(fake_llm, wire), PROMPT, stream=False)


async def test_stream_dropped_midway_is_network(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Reply("a long answer that never ends", chunk_chars=2, drop_after=4)])
    provider = make_provider(fake_llm, wire)
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in provider.generate_stream(PROMPT, None):
            seen.append(chunk.text)

    with pytest.raises(NetworkError) as caught:
        await consume()
    assert caught.value.kind == "network"
    assert seen  # some text came before the drop
    assert len(fake_llm.requests) == 1  # a stream cut after it started is not replayed


async def test_connection_dropped_before_answer_is_retried(fake_llm: FakeLLM, wire: str) -> None:
    # The SDKs wait their own back-off (~0.5 s) before retrying a connection error.
    fake_llm.script([Drop(), Reply("second try")])
    answer = await ask(make_provider(fake_llm, wire, max_retries=1), PROMPT, stream=True)
    assert answer.message.content == "second try"


async def test_connection_refused_is_network(wire: str, stream: bool) -> None:
    with socket.socket() as sock:  # a port nobody listens on once this socket closes
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
           "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
    provider = create_provider(ProviderSettings(provider=wire, max_retries=0, env=env))
    with pytest.raises(NetworkError, match="cannot reach"):
        await ask(provider, PROMPT, stream=stream)


async def test_body_that_is_not_json_is_malformed(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Fail(200, body="<html>gateway</html>")])
    with pytest.raises(MalformedResponseError) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=False)
    assert caught.value.kind == "malformed"


async def test_answer_without_choices_is_malformed(fake_llm: FakeLLM) -> None:
    fake_llm.script([Fail(200, body={"id": "x", "object": "chat.completion", "choices": []})])
    with pytest.raises(MalformedResponseError, match="no choices"):
        await ask(make_provider(fake_llm, "openai"), PROMPT, stream=False)


async def test_anthropic_stream_cut_cleanly_before_message_stop_is_malformed(
    fake_llm: FakeLLM,
) -> None:
    # A complete HTTP body whose events stop after message_start: no drop, just a short stream.
    body = ('event: message_start\ndata: {"type": "message_start", "message": {"id": "m", '
            '"type": "message", "role": "assistant", "model": "m", "content": [], '
            '"stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}}}\n\n')
    fake_llm.script([Fail(200, body=body, headers={"content-type": "text/event-stream"})])
    with pytest.raises(MalformedResponseError, match="message_stop"):
        await ask(make_provider(fake_llm, "anthropic"), PROMPT, stream=True)


@pytest.mark.parametrize(
    ("error_type", "error_class", "status"),
    [("overloaded_error", HTTPStatusError, 529), ("rate_limit_error", RateLimitError, 429),
     ("api_error", HTTPStatusError, 500)],
)
async def test_error_event_inside_a_stream(
    fake_llm: FakeLLM, wire: str, error_type: str, error_class: type, status: int
) -> None:
    fake_llm.script([Reply("partial answer", error_after=3, error_type=error_type)])
    with pytest.raises(error_class) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=True)
    assert caught.value.status == status
    assert error_type in str(caught.value)
    assert "fake error in the stream" in str(caught.value)


async def test_openai_stream_without_an_answer_is_malformed(fake_llm: FakeLLM) -> None:
    fake_llm.script([Fail(200, body="data: [DONE]\n\n",
                          headers={"content-type": "text/event-stream"})])
    with pytest.raises(MalformedResponseError, match="no answer"):
        await ask(make_provider(fake_llm, "openai"), PROMPT, stream=True)


async def test_cancelling_a_stream_is_not_translated(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Reply("x" * 40, chunk_chars=1, chunk_delay=0.05)])
    provider = make_provider(fake_llm, wire)
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in provider.generate_stream(PROMPT, None):
            first.set()

    task = asyncio.create_task(consume())
    # The first call imports the SDK: seconds of CPU, many more on a machine busy with tests.
    await asyncio.wait_for(first.wait(), 40)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_cancelling_a_call_is_not_translated(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Reply("late", first_byte_delay=2.0)])
    provider = make_provider(fake_llm, wire)
    task = asyncio.create_task(provider.generate(PROMPT, None))
    while not fake_llm.requests:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_key_the_service_echoes_is_redacted(
    fake_llm: FakeLLM, wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-live-0123456789abcdef"
    env = {**fake_llm.env(), "OPENAI_API_KEY": key, "ANTHROPIC_API_KEY": key}
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    fake_llm.script([Fail(401, f"Incorrect API key provided: {key}. Find yours at …")])
    provider = create_provider(ProviderSettings(provider=wire, model="m", env=env))
    with pytest.raises(AuthError) as caught:
        await ask(provider, PROMPT, stream=False)
    assert key not in str(caught.value) and key not in caught.value.message
    assert "Incorrect API key provided: [redacted]. Find yours" in caught.value.message


KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
URLS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


async def test_a_refused_key_names_its_variable_and_the_url(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.script([Fail(401, "invalid x-api-key")])
    started = asyncio.get_running_loop().time()
    with pytest.raises(AuthError) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    assert asyncio.get_running_loop().time() - started < 2  # not retried
    message = caught.value.message
    assert KEYS[wire] in message and fake_llm.env()[URLS[wire]] in message


async def test_an_unknown_model_names_the_setting_and_what_the_service_offers(
    fake_llm: FakeLLM, wire: str, stream: bool
) -> None:
    fake_llm.models = ["model-a", "model-b"]
    fake_llm.script([Fail(404, "The model `fake-model` does not exist")])
    with pytest.raises(ModelNotFoundError) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=stream)
    message = caught.value.message
    assert "HARNESS9_MODEL" in message and "model-a, model-b" in message
    assert caught.value.kind == "http" and caught.value.status == 404
    assert len(fake_llm.requests) == 1  # not retried


async def test_a_wrong_path_names_the_base_url_variable(fake_llm: FakeLLM, wire: str) -> None:
    fake_llm.script([Fail(404, "Not Found")])
    with pytest.raises(HTTPStatusError) as caught:
        await ask(make_provider(fake_llm, wire), PROMPT, stream=False)
    assert not isinstance(caught.value, ModelNotFoundError)
    assert URLS[wire] in caught.value.message


async def test_an_unreachable_service_names_the_url_and_the_proxies(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}" + ("/v1" if wire == "openai" else "")
    env = {KEYS[wire]: "k", URLS[wire]: url}
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    provider = create_provider(ProviderSettings(provider=wire, max_retries=0, env=env))
    with pytest.raises(NetworkError) as caught:
        await ask(provider, PROMPT, stream=True)
    message = caught.value.message
    assert url in message and URLS[wire] in message and "NO_PROXY=127.0.0.1" in message
