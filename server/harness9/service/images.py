"""Images given with a prompt (pasted into an editor's chat, attached by an ACP client): checked
once here, so both front-ends refuse the same things with the same words."""

from __future__ import annotations

import base64
import binascii

from harness9.schema import Image

MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")  # what both APIs take
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the smaller of the two APIs' limits for one image
MAX_IMAGES = 20  # a prompt's images at most


def image_from(media_type: str, data: str) -> Image:
    """An image of `media_type` from its base64 `data`; `ValueError` saying what is wrong."""
    if media_type not in MEDIA_TYPES:
        raise ValueError(f"an image must be one of {', '.join(MEDIA_TYPES)}, got {media_type!r}")
    too_big = f"an image may have at most {MAX_IMAGE_BYTES // (1024 * 1024)} MiB"
    if len(data) > MAX_IMAGE_BYTES * 4 // 3 + 8:  # before decoding what is surely too big
        raise ValueError(too_big)
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("an image's data must be base64") from None
    if not raw:
        raise ValueError("an image's data is empty")
    if len(raw) > MAX_IMAGE_BYTES:
        raise ValueError(too_big)
    # The APIs refuse an image whose bytes are not of its type, and one kept in a session
    # would make every later request of it fail.
    actual = sniffed_type(raw)
    if actual is None:
        raise ValueError(f"an image declared {media_type} holds no PNG, JPEG, GIF or WebP bytes")
    if actual != media_type:
        raise ValueError(f"an image declared {media_type} holds {actual} bytes: give its real "
                         "type")
    return Image(media_type, data)


def sniffed_type(raw: bytes) -> str | None:
    """The media type the bytes' signature says (one of `MEDIA_TYPES`), or None."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def check_count(images: tuple[Image, ...]) -> None:
    """`ValueError` when a prompt has more images than a request may carry."""
    if len(images) > MAX_IMAGES:
        raise ValueError(f"a prompt may have at most {MAX_IMAGES} images, got {len(images)}")
