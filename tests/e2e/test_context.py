"""Attached editor context end to end: what the model receives with the prompt, and refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)

SOURCE = "".join(f"line {n}\n" for n in range(1, 11))


async def daemon_for(start: StartDaemon, fake: FakeLLM, root: Path) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env)


def lsp_range(start: int, end: int, end_character: int = 0) -> dict[str, Any]:
    return {"start": {"line": start, "character": 0},
            "end": {"line": end, "character": end_character}}


def user_message(fake: FakeLLM) -> str:
    messages = fake.requests[0].messages
    content = next(m["content"] for m in messages if m["role"] == "user")
    assert isinstance(content, str)
    return content


async def test_each_kind_of_item_reaches_the_model_marked_with_path_and_lines(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text(SOURCE)
    fake_llm.script([Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    app = (workspace / "src" / "app.py").as_uri()
    context = [
        {"uri": app, "kind": "file"},
        # Lines 3-5 (0-based 2..5, ending at the start of 0-based line 5), read from the file.
        {"uri": app, "range": lsp_range(2, 5)},
        {"uri": app, "kind": "selection", "range": lsp_range(7, 7, 4), "text": "UNSAVED EDIT"},
        {"uri": app, "kind": "diagnostics", "range": lsp_range(0, 0, 3),
         "text": "error: undefined name 'x' (pyflakes)"},
        {"uri": (workspace / "a.txt").as_uri(), "kind": "note", "text": "keep it short"},
    ]
    result = await daemon.run(prompt="explain this", context=context)
    assert result["status"] == "completed"
    text = user_message(fake_llm)
    assert text.startswith("explain this\n\nAttached from the editor (5 items):")
    assert f'<attachment kind="file" path="src/app.py" lines="1-10">\n{SOURCE}</attachment>' in text
    assert ('<attachment kind="selection" path="src/app.py" lines="3-5">\n'
            "line 3\nline 4\nline 5\n</attachment>") in text
    assert ('<attachment kind="selection" path="src/app.py" lines="8-8">\n'
            "UNSAVED EDIT\n</attachment>") in text
    assert ('<attachment kind="diagnostics" path="src/app.py" lines="1-1">\n'
            "error: undefined name 'x' (pyflakes)\n</attachment>") in text
    assert '<attachment kind="note" path="a.txt">\nkeep it short\n</attachment>' in text


async def test_a_large_item_is_cut_with_a_note(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("x" * 99 + "\n" * 1 + ("y" * 99 + "\n") * 999)
    fake_llm.script([Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    await daemon.run(prompt="look", context=[{"uri": "big.txt"}])
    text = user_message(fake_llm)
    assert "[attachment cut: showed the first 32700 of 100000 bytes; read the rest with " \
           "read_file]\n</attachment>" in text
    assert len(text.encode()) < 34_000


async def test_items_outside_the_workspace_or_malformed_are_refused(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not send")
    (workspace / "link").symlink_to(secret)
    daemon = await daemon_for(start, fake_llm, workspace)
    inside = {"uri": (workspace / "a.txt").as_uri()}
    cases = [
        ([inside, inside, {"uri": secret.as_uri()}], "context[2].uri: path"),
        ([{"uri": "../secret.txt"}], "context[0].uri: path '../secret.txt' is outside"),
        ([inside, {"uri": (workspace / "link").as_uri()}], "context[1].uri: path"),
        ("a.txt", "context must be a list"),
        ([{"kind": "file"}], "context[0].uri is required"),
        ([{"uri": "https://example.com/x"}], "context[0].uri: https://example.com/x is not a"),
        ([{"uri": "a.txt", "kind": "video"}], "context[0].kind must be one of"),
        ([{"uri": "a.txt", "kind": "note"}], "context[0].text is required for kind 'note'"),
        ([{"uri": "a.txt", "range": {"start": {"line": 1}}}],
         "context[0].range.start.character must be an integer"),
        ([{"uri": "a.txt", "range": lsp_range(3, 1)}], "context[0].range.end must not come"),
    ]
    for context, expected in cases:
        with pytest.raises(JsonRpcException) as info:
            await daemon.request("agent/run", {"prompt": "x", "context": context})
        assert info.value.code == -32602, context
        assert expected in info.value.message, (context, info.value.message)
    assert fake_llm.requests == []


async def test_a_missing_file_is_attached_as_a_note_and_the_run_goes_on(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("ok")])
    daemon = await daemon_for(start, fake_llm, workspace)
    await daemon.run(prompt="x", context=[{"uri": "gone.py", "range": lsp_range(0, 1)}])
    assert ('<attachment kind="selection" path="gone.py">\n(could not be read: file not found)\n'
            "</attachment>") in user_message(fake_llm)


async def test_an_image_item_reaches_the_model_and_a_bad_one_names_its_field(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
           "RU5ErkJggg==")
    (workspace / "a.py").write_text("x = 1\n")
    fake_llm.script([Reply("a red dot")])
    daemon = await daemon_for(start, fake_llm, workspace)
    await daemon.run(prompt="what is this?", model="gpt-4o", context=[
        {"uri": (workspace / "a.py").as_uri()},
        {"kind": "image", "mimeType": "image/png", "data": png},
    ])
    content = fake_llm.requests[-1].messages[-1]["content"]
    assert content[0]["type"] == "text" and "a.py" in content[0]["text"]
    assert content[1] == {"type": "image_url",
                          "image_url": {"url": f"data:image/png;base64,{png}"}}
    with pytest.raises(JsonRpcException) as bad:
        await daemon.run(prompt="x", context=[{"kind": "image", "mimeType": "image/png",
                                                "data": "%%%"}])
    assert bad.value.code == -32602 and "context[0]" in str(bad.value)
    assert "base64" in str(bad.value)
    # A PNG said to be a JPEG: the API would refuse it, and the session would keep it.
    with pytest.raises(JsonRpcException) as mislabelled:
        await daemon.run(prompt="x", context=[{"kind": "image", "mimeType": "image/jpeg",
                                                "data": png}])
    assert mislabelled.value.code == -32602 and "context[0]" in str(mislabelled.value)
    assert "declared image/jpeg holds image/png bytes" in str(mislabelled.value)
    assert len(fake_llm.requests) == 1
