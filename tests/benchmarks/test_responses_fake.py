"""The Responses-API fake the peers comparison gives Codex speaks the format as the OpenAI SDK
reads it: a streamed response whose output text is `done`, and a model list."""

from __future__ import annotations

import pytest

from benchmarks.responses_fake import ANSWER, responses_fake

pytestmark = pytest.mark.timeout(60)


async def test_the_sdk_reads_a_streamed_answer_and_the_models() -> None:
    import openai

    async with responses_fake() as fake:
        client = openai.AsyncOpenAI(api_key="bench-key", base_url=fake.url, max_retries=0)
        stream = await client.responses.create(model="bench-model", input="hi", stream=True)
        kinds, deltas, final = [], [], None
        async for event in stream:
            kinds.append(event.type)
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
            if event.type == "response.completed":
                final = event.response
        models = [m.id async for m in client.models.list()]
        await client.close()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "".join(deltas) == ANSWER
    assert final is not None and final.output_text == ANSWER and final.usage is not None
    assert models == ["bench-model"]
