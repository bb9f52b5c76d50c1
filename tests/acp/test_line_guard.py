"""Lines the ACP SDK cannot take (not a JSON object) are answered by the agent and never end
the connection; everything else reaches the SDK unchanged, however the bytes are split."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from harness9.acp.line_guard import LineGuard

pytestmark = pytest.mark.timeout(30)

GOOD = b'{"jsonrpc":"2.0","id":1,"method":"x"}\n'
INPUT = GOOD + b"[]\n  42\nnot json\n\n" + b' {"id":2}\n' + GOOD


async def _through(chunks: list[bytes]) -> tuple[bytes, list[dict[str, object]]]:
    reader = asyncio.StreamReader()
    answers: list[bytes] = []
    guard = LineGuard(reader, answers.append)
    for chunk in chunks:
        guard.feed(chunk)
    reader.feed_eof()
    return await reader.read(), [json.loads(a) for a in answers]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, len(INPUT)])
async def test_objects_pass_and_the_rest_is_answered_however_the_bytes_are_split(
    size: int,
) -> None:
    chunks = [INPUT[i : i + size] for i in range(0, len(INPUT), size)]
    passed, answers = await _through(chunks)
    assert passed == GOOD + b"\n" + b' {"id":2}\n' + GOOD
    assert [a["error"]["code"] for a in answers] == [-32600, -32600, -32700]  # type: ignore[index]
    assert all(a["id"] is None for a in answers)


async def test_a_huge_line_that_starts_wrong_is_refused_without_being_kept_whole() -> None:
    huge = b"[" + b"1," * (1 << 20) + b"1]\n"
    passed, answers = await _through([huge[i : i + 65536] for i in range(0, len(huge), 65536)]
                                     + [GOOD])
    assert passed == GOOD
    assert len(answers) == 1


async def test_the_agent_answers_a_batch_and_goes_on(tmp_path: Path) -> None:
    env = {**os.environ, "HARNESS9_STATE_DIR": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "harness9", "acp", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env)
    assert process.stdin is not None and process.stdout is not None

    async def ask(line: bytes) -> dict[str, object]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line)
        await process.stdin.drain()
        return json.loads(await asyncio.wait_for(process.stdout.readline(), 20))  # type: ignore[no-any-return]

    try:
        hello = await ask(b'{"jsonrpc":"2.0","id":1,"method":"initialize",'
                          b'"params":{"protocolVersion":1}}\n')
        assert hello["id"] == 1
        assert (await ask(b"[]\n"))["error"] == {
            "code": -32600,
            "message": "Invalid Request: batches are not supported; send one JSON object per line",
        }
        new = await ask(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                                    "params": {"cwd": str(tmp_path), "mcpServers": []}}).encode()
                        + b"\n")
        assert new["id"] == 2 and "sessionId" in new["result"]  # type: ignore[operator]
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 20)
