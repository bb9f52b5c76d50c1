"""Images given with a prompt reach the model in each API's own form, are kept with the session,
and a model known not to see images is refused with a reason."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

import pytest

from harness9.schema import Image
from harness9.service.agent_service import AgentService
from harness9.service.images import MAX_IMAGES, image_from
from harness9.service.service_errors import RunError
from tests.fakellm import FakeLLM, Reply
from tests.service.test_runs import Recorder, request

pytestmark = pytest.mark.timeout(30)

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
       "rkJggg==")


async def test_openai_gets_image_url_parts(fake: FakeLLM, tmp_path: Path) -> None:
    fake.script([Reply("a red dot")])
    run = replace(request(tmp_path, "what is this?", model="gpt-4o"),
                  images=(Image("image/png", PNG),))
    await AgentService().turns.run(run, Recorder().wire)
    prompt = fake.requests[-1].body["messages"][-1]
    assert prompt["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]


async def test_anthropic_gets_image_blocks_before_the_text_and_the_session_keeps_them(
    fake: FakeLLM, tmp_path: Path
) -> None:
    fake.script([Reply("a red dot"), Reply("still red")])
    service = AgentService()
    run = replace(request(tmp_path, "what is this?", provider="anthropic",
                          model="claude-sonnet-4-5"), images=(Image("image/png", PNG),))
    first = await service.turns.run(run, Recorder().wire)
    blocks = fake.requests[-1].body["messages"][-1]["content"]
    assert blocks[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                     "data": PNG}}
    assert blocks[1]["type"] == "text" and blocks[1]["text"] == "what is this?"
    service.close()
    # A new daemon continues the session: the image is still in the conversation.
    again = AgentService()
    await again.turns.run(request(tmp_path, "and now?", first.ids.session_id, provider="anthropic",
                                  model="claude-sonnet-4-5"), Recorder().wire)
    first_prompt = fake.requests[-1].body["messages"][0]["content"]
    assert first_prompt[0]["source"]["data"] == PNG
    again.close()


async def test_a_model_without_vision_is_refused_before_any_request(
    fake: FakeLLM, tmp_path: Path
) -> None:
    run = replace(request(tmp_path, "what is this?", model="gpt-3.5-turbo"),
                  images=(Image("image/png", PNG),))
    with pytest.raises(RunError) as refused:
        await AgentService().turns.run(run, Recorder().wire)
    assert refused.value.kind == "config" and "does not take images" in refused.value.message
    assert fake.requests == []


@pytest.mark.parametrize(("media_type", "data", "reason"), [
    ("image/bmp", PNG, "must be one of"),
    ("image/png", "not base64!", "must be base64"),
    ("image/png", "", "empty"),
    ("image/png", base64.b64encode(b"x" * (5 * 1024 * 1024 + 1)).decode(), "at most 5 MiB"),
])
def test_a_bad_image_says_what_is_wrong(media_type: str, data: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        image_from(media_type, data)
    assert MAX_IMAGES == 20


SIGNED = {
    "image/png": b"\x89PNG\r\n\x1a\n" + b"\0" * 8,
    "image/jpeg": b"\xff\xd8\xff\xe0" + b"\0" * 8,
    "image/gif": b"GIF89a" + b"\0" * 8,
    "image/webp": b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 8,
}


@pytest.mark.parametrize("declared", list(SIGNED))
@pytest.mark.parametrize("actual", list(SIGNED))
def test_an_image_is_taken_only_when_its_bytes_are_of_its_type(declared: str,
                                                               actual: str) -> None:
    data = base64.b64encode(SIGNED[actual]).decode()
    if declared == actual:
        assert image_from(declared, data) == Image(declared, data)
        return
    with pytest.raises(ValueError, match=f"declared {declared} holds {actual} bytes"):
        image_from(declared, data)


def test_bytes_of_no_image_type_are_refused() -> None:
    with pytest.raises(ValueError, match="declared image/png holds no PNG, JPEG, GIF or WebP"):
        image_from("image/png", base64.b64encode(b"<svg>not a png</svg>").decode())
