"""The fake LLM as a process, for tests that drive the daemon from another language (the editors').

`python -m tests.fakellm` (from the repository root) serves `FakeLLM`, prints its base URL on
the first line of stdout, then obeys one command a line on stdin, answering each with one line:

- `script <json>`: append replies to the script; `<json>` is a list of
  `{"text": str, "tool_calls": [{"name": str, "arguments": object}]}` (the replay format's turns).
  Answers `ok`.
- `requests`: the JSON list of every request received so far, as `{"wire", "path", "body"}`.

End of input stops it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply


def reply_of(turn: dict[str, Any]) -> Reply:
    """A `Reply` from one turn in the replay format."""
    calls = [Call(c["name"], c.get("arguments", {}), c.get("id"))
             for c in turn.get("tool_calls", [])]
    return Reply(text=turn.get("text", ""), tool_calls=calls)


def obey(fake: FakeLLM, line: str) -> str:
    """Carry out one command line; the line to answer with."""
    command, _, arg = line.strip().partition(" ")
    if command == "script":
        fake.script(reply_of(turn) for turn in json.loads(arg))
        return "ok"
    if command == "requests":
        return json.dumps([{"wire": r.wire, "path": r.path, "body": r.body} for r in fake.requests])
    return json.dumps({"error": f"unknown command {command!r}"})


def main() -> None:
    """Serve until stdin closes."""
    with FakeLLM() as fake:
        print(fake.base_url, flush=True)
        for line in sys.stdin:
            if line.strip():
                print(obey(fake, line), flush=True)


if __name__ == "__main__":
    main()
