"""`harness9 run --file PATH[:START-END]`: the files and lines reach the model with the prompt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.client.conftest import run_harness9
from tests.fakellm import FakeLLM, Reply
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]


@pytest.mark.timeout(30)
def test_files_and_line_ranges_are_attached(workspace: Path, fake_llm: FakeLLM) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    (workspace / "b.txt").write_text("bee\n")
    fake_llm.script([Reply("seen")])
    env = {**os.environ, **fake_llm.env(), "HARNESS9_PROVIDER": "openai"}
    done = run_harness9(
        "run", "summarise", "--workspace", str(workspace), "--json",
        "--file", str(workspace / "notes.txt") + ":2-3", "--file", str(workspace / "b.txt"),
        env=env,
    )
    assert done.code == 0, done.err + done.out
    sent = next(m["content"] for m in fake_llm.requests[0].messages if m["role"] == "user")
    assert sent.startswith("summarise\n\nAttached from the editor (2 items):")
    assert '<attachment kind="selection" path="notes.txt" lines="2-3">\ntwo\nthree\n' in sent
    assert '<attachment kind="file" path="b.txt" lines="1-1">\nbee\n</attachment>' in sent


def test_a_bad_line_range_is_a_usage_error(workspace: Path) -> None:
    done = run_harness9("run", "x", "--workspace", str(workspace), "--file", "a.txt:5-2")
    assert done.code == 2
    assert "5-2: lines are START-END" in done.err
