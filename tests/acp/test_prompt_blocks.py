"""A prompt's content blocks → the engine's prompt, in-process: what a resource link attaches."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from acp import resource_link_block, text_block

from harness9.acp.prompt_blocks import prompt_text

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
