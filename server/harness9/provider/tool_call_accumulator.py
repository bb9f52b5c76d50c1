"""Assembles streamed tool calls from their fragments (shared by the OpenAI and Anthropic adapters).

Streams deliver a tool call in pieces: a header with its id and name, then argument text in
fragments. Parallel calls may interleave, so fragments are keyed by the stream's own index
(OpenAI's `tool_calls[].index`, Anthropic's content block index) and joined per key. The joined
argument text is kept exactly as produced, so broken JSON reaches the tool (and the model) as a
readable failure instead of breaking the stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness9.schema import ToolCall


@dataclass(slots=True)
class _Partial:
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    default: str = "{}"


class ToolCallAccumulator:
    """Collects the fragments of every tool call of one streamed message."""

    def __init__(self) -> None:
        self._calls: dict[int, _Partial] = {}

    def add(
        self,
        key: int,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: str | None = None,
    ) -> None:
        """Merge one fragment of call `key`: the id and name when given, more argument text."""
        partial = self._calls.setdefault(key, _Partial())
        if id:
            partial.id = id
        if name and not partial.name:
            partial.name = name
        if arguments:
            partial.fragments.append(arguments)

    def set_default(self, key: int, arguments: str) -> None:
        """The arguments of call `key` if no fragment arrives (a header that carried them)."""
        self._calls.setdefault(key, _Partial()).default = arguments

    def __len__(self) -> int:
        return len(self._calls)

    def calls(self) -> tuple[ToolCall, ...]:
        """The assembled calls in index order; a call without an id gets `call_<index>`."""
        return tuple(
            ToolCall(
                id=partial.id or f"call_{key}",
                name=partial.name,
                arguments="".join(partial.fragments) or partial.default,
            )
            for key, partial in sorted(self._calls.items())
        )
