"""What the fake LLM answers in the benchmarks: each prompt is a small script.

A prompt `bench <scenario> <args…>` selects a scenario; the answer depends only on the request
(the scenario and how many assistant turns the conversation already has), so one fake server
serves any number of runs, concurrent or not, with no state. Scenarios:

- `loop <path>`: read `path` on every turn (the run ends at its `maxTurns`).
- `append <path>`: a bash call that appends a line to `path` on every turn (likewise).
- `runs <tag> <turns> <path>`: read `path` on `turns` turns, then answer `answer <tag>`.
- `tasks <k> <turns> <path>`: `k` `task` calls at once, each an explore child running
  `runs c<i> <turns> <path>`, then `done`.
- `parallel <k> <seconds>`: `k` bash calls of `sleep <seconds>` at once, then `done`.
- `bash <command…>` / `read <path>`: one tool call, then `done`.
- `write <path>`: one `write_file` of a short Python file at `path`, then `done`.
- `pywrite <path> <n>`: one `write_file` of `python_text(n)` at `path`, then `done`.
- `stream <n> <delay>`: a text of `n` deltas, `delay` seconds apart (see `delta_text`).
- `mcp <tool> <turns>`: call the MCP tool `tool` (no arguments but `text: "x"`) on `turns`
  turns, then `done`.
- anything else: `done`.
"""

from __future__ import annotations

import shlex
from typing import Any

from tests.fakellm import Call, Reply, Request

DELTA_CHARS = 6


def delta_text(n: int) -> str:
    """The streamed text: `n` deltas of `DELTA_CHARS` characters, each naming its own index."""
    return "".join(f"{k:05d}|" for k in range(n))


def python_text(n: int) -> str:
    """A small Python file, different for each `n`; odd ones use an undefined name."""
    use = "undefined_name" if n % 2 else "value"
    return f"import os\n\nvalue = {n}\nprint({use})\n"


def respond(request: Request) -> Reply:
    """The answer to `request`, from the scenario in its prompt."""
    words = shlex.split(_prompt(request.messages))
    turn = sum(1 for m in request.messages if m.get("role") == "assistant")
    scenario, args = (words[1], words[2:]) if len(words) > 1 else ("", [])
    if scenario == "loop":
        return _read(args[0])
    if scenario == "append":
        return Reply(tool_calls=[Call("bash", {"command": f"echo {turn} >> {args[0]}"})])
    if scenario == "runs":
        return _read(args[2]) if turn < int(args[1]) else Reply(f"answer {args[0]}")
    if scenario == "mcp":
        done = turn >= int(args[1])
        return Reply("done") if done else Reply(tool_calls=[Call(args[0], {"text": "x"})])
    if turn > 0:
        return Reply("done")
    if scenario == "parallel":
        calls = [Call("bash", {"command": f"sleep {args[1]}"}) for _ in range(int(args[0]))]
        return Reply(tool_calls=calls)
    if scenario == "tasks":
        return Reply(tool_calls=[
            Call("task", {"description": f"child {i}", "prompt":
                          f"bench runs c{i} {args[1]} {args[2]}"}) for i in range(int(args[0]))])
    if scenario == "bash":
        return Reply(tool_calls=[Call("bash", {"command": " ".join(args)})])
    if scenario == "read":
        return _read(args[0])
    if scenario == "write":
        return Reply(tool_calls=[Call("write_file", {"path": args[0], "content": "x = 1\n"})])
    if scenario == "pywrite":
        return Reply(tool_calls=[Call("write_file", {"path": args[0],
                                                     "content": python_text(int(args[1]))})])
    if scenario == "stream":
        text = delta_text(int(args[0]))
        return Reply(text, chunk_chars=DELTA_CHARS, chunk_delay=float(args[1]))
    return Reply("done")


def _read(path: str) -> Reply:
    return Reply(tool_calls=[Call("read_file", {"path": path})])


def _prompt(messages: list[dict[str, Any]]) -> str:
    """The first user message that is a scenario (skipping any preamble the client adds)."""
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            block.get("text", "") for block in content or [] if isinstance(block, dict)
        ]
        for text in texts:
            if text.startswith("bench "):
                return str(text)
    return ""
