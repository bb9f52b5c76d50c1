"""A prompt's content blocks → the engine's prompt, in-process: what a resource link attaches."""

from __future__ import annotations

import base64
import os
import threading
from pathlib import Path

import pytest
from acp import RequestError, image_block, resource_link_block, text_block

from harness9.acp.prompt_blocks import prompt_images, prompt_text

pytestmark = pytest.mark.timeout(10)


def _in_a_thread(root: Path, uri: str) -> str:
    """The prompt, or a failure when reading it blocks (the test's timeout would kill all)."""
    found: list[str] = []
    reader = threading.Thread(
        target=lambda: found.append(prompt_text([text_block("see"), resource_link_block(
            "it", uri)], str(root))), daemon=True)
    reader.start()
    reader.join(3)
    assert found, "reading the linked file blocked"
    return found[0]


def test_a_link_to_a_fifo_is_not_attached_and_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    pipe = tmp_path / "pipe"
    text = _in_a_thread(tmp_path, pipe.as_uri())
    assert text == f"see\n\n[it]({pipe.as_uri()}) (not attached: {pipe} is not a regular file)"


def test_a_link_to_a_regular_file_is_attached(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    uri = (tmp_path / "a.txt").as_uri()
    assert _in_a_thread(tmp_path, uri) == f'see\n\n<context uri="{uri}">\nalpha\n\n</context>'


PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
       "RU5ErkJggg==")
SIGNATURES = {  # base64 of the first bytes each format starts with
    "image/png": PNG,
    "image/jpeg": base64.b64encode(b"\xff\xd8\xff\xe0\0\x10JFIF").decode(),
    "image/gif": base64.b64encode(b"GIF89a\x01\0\x01\0").decode(),
    "image/webp": base64.b64encode(b"RIFF\x24\0\0\0WEBPVP8 ").decode(),
}


def test_an_image_is_taken_when_its_bytes_are_of_its_media_type() -> None:
    for media_type, data in SIGNATURES.items():
        [image] = prompt_images([image_block(data, media_type)])
        assert image.media_type == media_type


@pytest.mark.parametrize(("media_type", "data"), [
    ("image/png", SIGNATURES["image/jpeg"]),  # a JPEG labelled PNG
    ("image/jpeg", PNG),
    ("image/gif", base64.b64encode(b"GIF00a").decode()),
    ("image/webp", base64.b64encode(b"RIFF\x24\0\0\0WAVEfmt ").decode()),  # a sound
    ("image/png", "aGk="),  # two bytes of text
])
def test_an_image_whose_bytes_are_not_of_its_media_type_is_refused(
    media_type: str, data: str
) -> None:
    with pytest.raises(RequestError) as info:
        prompt_images([text_block("look"), image_block(data, media_type)])
    assert info.value.code == -32602
    assert str(info.value).startswith(f"prompt: an image declared {media_type} holds ")
