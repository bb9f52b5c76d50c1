"""The interactive prompt on a real terminal (a pty, its screen emulated) against the real daemon
and the fake LLM service: history kept per workspace, Alt-Enter, Ctrl-C and Ctrl-D, completion of
`/commands` and `@paths`, `/help` and `/undo` answered without the model."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness9.client.completion import path_matches
from harness9.client.interactive import with_mentions
from tests.client.terminal import Terminal
from tests.fakellm import Call, FakeLLM, Reply
from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm"]

pytestmark = pytest.mark.timeout(60)

UP, ALT_ENTER, CTRL_C, CTRL_D = b"\x1b[A", b"\x1b\r", b"\x03", b"\x04"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM) -> Path:
    """The state folder of the processes the test starts; they use the fake LLM."""
    folder = tmp_path / "state"
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(folder))
    for name, value in fake_llm.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARNESS9_PROVIDER", "openai")
    return folder


@pytest.fixture
def prompt(workspace: Path, state: Path) -> Iterator[Terminal]:
    """`harness9 run` at its first prompt."""
    term = _start(workspace)
    yield term
    term.kill()


def _start(workspace: Path) -> Terminal:
    term = Terminal(["run", "--workspace", str(workspace)])
    term.wait_for(lambda screen: screen.endswith("›"))
    return term


def _user_texts(fake: FakeLLM) -> list[str]:
    """The last user message of each request the model got."""
    texts = []
    for request in fake.requests:
        content = next(m["content"] for m in reversed(request.body["messages"])
                       if m["role"] == "user")
        texts.append(content if isinstance(content, str)
                     else "".join(part.get("text", "") for part in content))
    return texts


def _run(term: Terminal, keys: bytes, runs: int) -> None:
    """Type `keys` and wait for the `runs`-th run to end and the prompt to come back."""
    term.type(keys)
    term.wait_for(lambda screen: screen.count("✓ completed") == runs and screen.endswith("›"))


def _quit(term: Terminal) -> None:
    term.type(CTRL_D)
    assert term.finish() == 0


def test_up_recalls_the_last_prompt_also_in_the_next_session(
    prompt: Terminal, workspace: Path, state: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.script([Reply("one"), Reply("two"), Reply("three")])
    _run(prompt, b"count the files\r", 1)
    prompt.type(UP)
    prompt.wait_for(lambda screen: screen.endswith("› count the files"))
    _run(prompt, b"\r", 2)
    _quit(prompt)
    later = _start(workspace)
    try:
        later.type(UP)
        later.wait_for(lambda screen: screen.endswith("› count the files"))
        _run(later, b" again\r", 1)
        _quit(later)
    finally:
        later.kill()
    assert _user_texts(fake_llm) == ["count the files"] * 2 + ["count the files again"]
    [kept] = (state / "prompt-history").iterdir()
    assert kept.name.startswith("ws-")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700


def test_alt_enter_starts_a_new_line_and_enter_sends_both(
    prompt: Terminal, fake_llm: FakeLLM
) -> None:
    fake_llm.script([Reply("ok")])
    prompt.type(b"first line" + ALT_ENTER + b"second line")
    prompt.wait_for(lambda screen: screen.endswith("› first line\n  second line"))
    _run(prompt, b"\r", 1)
    _quit(prompt)
    assert _user_texts(fake_llm) == ["first line\nsecond line"]


def test_ctrl_c_clears_the_line_and_ctrl_d_quits(prompt: Terminal, fake_llm: FakeLLM) -> None:
    fake_llm.script([Reply("ok")])
    prompt.type(b"not this")
    prompt.wait_for(lambda screen: screen.endswith("› not this"))
    prompt.type(CTRL_C)
    prompt.wait_for(lambda screen: screen.endswith("›"))
    _run(prompt, b"this\r", 1)
    _quit(prompt)
    assert _user_texts(fake_llm) == ["this"]


def test_help_is_answered_at_the_prompt_not_by_the_model(
    prompt: Terminal, fake_llm: FakeLLM
) -> None:
    prompt.type(b"/help\r")
    screen = prompt.wait_for(lambda screen: "Ctrl-D quits" in screen and screen.endswith("›"))
    assert "/plan PROMPT" in screen
    assert "/undo" in screen  # the daemon's commands follow the prompt's own
    _quit(prompt)
    assert fake_llm.requests == []


def test_tab_completes_commands_and_workspace_paths_which_attach_the_file(
    prompt: Terminal, workspace: Path, fake_llm: FakeLLM
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    fake_llm.script([Reply("read it")])
    prompt.type(b"/he\t")
    prompt.wait_for(lambda screen: screen.endswith("› /help"))
    prompt.type(CTRL_C + b"look at @sr\t")
    prompt.wait_for(lambda screen: screen.endswith("› look at @src/"))
    prompt.type(b"m\t")
    prompt.wait_for(lambda screen: screen.endswith("› look at @src/main.py"))
    _run(prompt, b"\r", 1)
    _quit(prompt)
    [sent] = _user_texts(fake_llm)
    assert sent.startswith("look at @src/main.py\n\nAttached from the editor (1 item")
    assert "print('hi')" in sent


def test_undo_puts_back_what_the_last_run_changed(
    prompt: Terminal, workspace: Path, fake_llm: FakeLLM
) -> None:
    write = Call("write_file", {"path": "notes.txt", "content": "after\n"})
    fake_llm.script([Reply("Writing.", tool_calls=[write]), Reply("Written.")])
    _run(prompt, b"write the notes\r", 1)
    assert (workspace / "notes.txt").read_text() == "after\n"
    _run(prompt, b"/undo\r", 2)
    _quit(prompt)
    assert not (workspace / "notes.txt").exists()
    assert len(fake_llm.requests) == 2  # the run's two turns; /undo asked no model


def test_paths_skip_git_and_dependency_folders(workspace: Path) -> None:
    for folder in (".git", "node_modules", "nodes"):
        (workspace / folder).mkdir()
    (workspace / "notes.md").write_text("")
    (workspace / "nodes" / "a.py").write_text("")
    assert path_matches(workspace, "") == ["nodes/", "notes.md"]
    assert path_matches(workspace, "nodes/") == ["nodes/a.py"]
    assert path_matches(workspace, "../") == []


def test_only_mentions_of_workspace_files_are_attached(workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.py").write_text("")
    (workspace / "docs").mkdir()
    (tmp_path / "secret.txt").write_text("")
    line = "see @a.py, @docs and @../secret.txt, not me@a.py nor @gone.py"
    params = with_mentions({"prompt": line, "context": []}, workspace)
    assert params == {"prompt": line, "context": [{"uri": (workspace / "a.py").as_uri(),
                                                   "kind": "file"}]}
    assert with_mentions({"prompt": "nothing here"}, workspace) == {"prompt": "nothing here"}
