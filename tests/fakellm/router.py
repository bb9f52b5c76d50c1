"""A responder that keeps one script per conversation, for runs whose requests interleave
(a parent and its child agents): a request goes to the script whose key its first user
message starts with."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from tests.fakellm.steps import Fail, Request, Step


def first_user_text(request: Request) -> str:
    """The text of the conversation's first user message (OpenAI or Anthropic format)."""
    for message in request.messages:
        if message.get("role") == "user":
            return _text(message.get("content"))
    return ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class Router:
    """`Router({"fix it": [...], "CHILD-A": [...]})`: each request takes the next step of
    the script of its conversation; `requests[key]` lists what each conversation sent."""

    def __init__(self, scripts: dict[str, Iterable[Step]]) -> None:
        self._scripts = {key: list(steps) for key, steps in scripts.items()}
        self.requests: dict[str, list[Request]] = {key: [] for key in scripts}
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Step:
        first = first_user_text(request)
        with self._lock:
            for key, steps in self._scripts.items():
                if first.startswith(key):
                    self.requests[key].append(request)
                    if steps:
                        return steps.pop(0)
                    return Fail(400, f"the script of {key!r} is over")
        return Fail(400, f"no script for a conversation starting {first[:60]!r}")
