"""A `session/prompt`'s content blocks → the prompt text the engine runs on.

Text blocks are the prompt. Embedded resources (`embeddedContext`) are attached as context
blocks with their URI. A resource link to a file inside the workspace is read through the
workspace sandbox and attached the same way; any other link is left as a link. Images go to
the model beside the text (`prompt_images`), once their bytes are seen to be of their media
type; audio is not announced and is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlparse

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from harness9.acp.acp_errors import invalid_params
from harness9.schema import Image, ToolError
from harness9.service.images import check_count, image_from
from harness9.workspace.regular_files import read_regular_beneath

LINK_LIMIT = 256 * 1024  # bytes of a linked file attached to the prompt

def prompt_text(blocks: Sequence[Any], root: str) -> str:
    """The prompt for the engine; -32602 (`prompt`) for content we do not take."""
    parts = [_part(block, root) for block in blocks]
    text = "\n\n".join(part for part in parts if part)
    if not text.strip() and not any(isinstance(b, ImageContentBlock) for b in blocks):
        raise invalid_params("prompt", "the prompt is empty")
    return text


def prompt_images(blocks: Sequence[Any]) -> tuple[Image, ...]:
    """The prompt's images, checked; -32602 (`prompt`) naming what is wrong with one."""
    try:
        images = tuple(image_from(b.mime_type, b.data) for b in blocks
                       if isinstance(b, ImageContentBlock))
        check_count(images)  # (`image_from` checked each one's bytes against its type)
    except ValueError as exc:
        raise invalid_params("prompt", str(exc)) from None
    return images


def _part(block: Any, root: str) -> str:
    match block:
        case TextContentBlock():
            return block.text
        case ImageContentBlock():
            return ""  # given to the model as an image (`prompt_images`)
        case EmbeddedResourceContentBlock():
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                return _context(resource.uri, resource.text)
            if isinstance(resource, BlobResourceContents):
                return f"(binary resource {resource.uri} attached; its content is not shown)"
        case ResourceContentBlock():
            return _link(block, root)
    kind = getattr(block, "type", type(block).__name__)
    raise invalid_params("prompt", f"{kind} content is not supported")


def _context(uri: str, text: str) -> str:
    return f'<context uri="{uri}">\n{text}\n</context>'


def _link(block: ResourceContentBlock, root: str) -> str:
    parsed = urlparse(block.uri)
    shown = f"[{block.name}]({block.uri})"
    if parsed.scheme not in ("", "file"):
        return shown
    path = unquote(parsed.path) if parsed.scheme else block.uri
    try:
        data = read_regular_beneath(root, path, LINK_LIMIT + 1)
    except (ToolError, OSError) as exc:
        return f"{shown} (not attached: {_why(exc)})"
    cut = "\n[… cut at 256 KiB]" if len(data) > LINK_LIMIT else ""
    return _context(block.uri, data[:LINK_LIMIT].decode("utf-8", "replace") + cut)


def _why(exc: Exception) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    return str(exc).removeprefix("Error: ")
