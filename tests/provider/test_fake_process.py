"""The fake LLM as a process (`python -m tests.fakellm`), as the editors' end-to-end tests run it:
scripted over stdin, answering the real SDK, listing the requests it received."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness9.provider.factory import ProviderSettings, create_provider
from harness9.schema import Message
from tests.provider.conftest import ask

REPO = Path(__file__).resolve().parents[2]


class FakeProcess:
    """The child process and its line protocol."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        assert proc.stdout is not None
        self.url = proc.stdout.readline().strip()

    def command(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()


@pytest.fixture
def fake_process() -> Iterator[FakeProcess]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakellm"], cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        yield FakeProcess(proc)
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


async def test_scripted_over_stdin_and_lists_requests(fake_process: FakeProcess) -> None:
    assert fake_process.url.startswith("http://127.0.0.1:")
    call = {"name": "read_file", "arguments": {"path": "a.txt"}}
    turn = {"text": "Reading.", "tool_calls": [call]}
    assert fake_process.command("script " + json.dumps([turn])) == "ok"
    env = {"OPENAI_API_KEY": "sk-fake", "OPENAI_BASE_URL": fake_process.url + "/v1"}
    provider = create_provider(ProviderSettings(provider="openai", model="fake", env=env))
    answer = await ask(provider, [Message.user("What does a.txt say?")], stream=True)
    assert answer.message.content == "Reading."
    assert [(c.name, json.loads(c.arguments)) for c in answer.message.tool_calls] == [
        ("read_file", {"path": "a.txt"})]
    requests = json.loads(fake_process.command("requests"))
    assert [r["wire"] for r in requests] == ["openai"]
    assert requests[0]["body"]["messages"][-1]["content"] == "What does a.txt say?"


def test_unknown_command_is_answered(fake_process: FakeProcess) -> None:
    assert "unknown command" in fake_process.command("nonsense")
