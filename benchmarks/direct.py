"""Floors: the same model requests made directly with the SDKs, and tools called directly.

These replay what a run does (a conversation that grows by one tool call and its result per
turn) with nothing of ours between the SDK and the fake server but the tool itself.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.core import now

MODEL = "bench-model"
MAX_TOKENS = 4096


class DirectLoop:
    """An agent loop reduced to its floor: SDK call, tool call, append, repeat."""

    def __init__(self, provider: str, url: str, stream: bool, workdir: str,
                 raw: bool = False, system: bool = False) -> None:
        """`raw` (OpenAI, not streamed): post the body as the daemon does (encoded by its
        `BodyEncoder`, which reuses the previous body's JSON for the messages they share),
        without the SDK's parameter transformation, whose cost grows with the conversation.
        `system`: send the daemon's system prompt too (Anthropic: with the prompt-cache marks
        the daemon sets on it and on the tools), so the requests are the daemon's own."""
        from harness9.provider.json_body import BodyEncoder
        from harness9.service.config.settings import RunSettings
        from harness9.service.runs.assembly import system_prompt
        from harness9.tools import default_registry

        self.system = system_prompt(workdir, RunSettings()) if system else None
        self.raw = BodyEncoder() if raw else None
        self.provider = provider
        self.stream = stream
        registry = default_registry(workdir)
        self.tools = direct_tools(workdir)
        defs = registry.available_tools()
        if provider == "openai":
            from openai import AsyncOpenAI

            self.client: Any = AsyncOpenAI(api_key="bench-key", base_url=f"{url}/v1")
            self.schema = [{"type": "function", "function": {
                "name": d.name, "description": d.description, "parameters": d.input_schema}}
                for d in defs]
        else:
            from anthropic import AsyncAnthropic

            self.client = AsyncAnthropic(api_key="bench-key", base_url=url)
            self.schema = [{"name": d.name, "description": d.description,
                            "input_schema": d.input_schema} for d in defs]
            if self.system is not None:
                self.schema[-1] = {**self.schema[-1], "cache_control": {"type": "ephemeral"}}

    async def run(self, prompt: str, turns: int, history: int = 0, output: str = "") -> float:
        """Seconds for `turns` model calls, each followed by its tool calls, after `history`
        earlier turns (a read_file call of `notes.txt` answered with `output` each)."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        if self.system is not None and self.provider == "openai":
            messages.insert(0, {"role": "system", "content": self.system})
        for k in range(history):
            self._append(messages, [(f"h{k}", "read_file", '{"path": "notes.txt"}')], [output])
        started = now()
        for _ in range(turns):
            calls = await self.call(messages)
            outputs = [await self._execute(name, args) for _, name, args in calls]
            self._append(messages, calls, outputs)
        return now() - started

    async def call(self, messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        """One model call; returns its tool calls as (id, name, raw arguments)."""
        if self.provider == "openai":
            return await (self._openai_stream(messages) if self.stream
                          else self._openai(messages))
        return await (self._anthropic_stream(messages) if self.stream
                      else self._anthropic(messages))

    async def stream_text(self, prompt: str) -> list[tuple[float, str]]:
        """Stream one text reply; returns each piece with its arrival time."""
        messages = [{"role": "user", "content": prompt}]
        pieces: list[tuple[float, str]] = []
        if self.provider == "openai":
            stream = await self.client.chat.completions.create(
                model=MODEL, messages=messages, stream=True,
                stream_options={"include_usage": True})
            async for chunk in stream:
                for choice in chunk.choices:
                    if choice.delta.content:
                        pieces.append((now(), choice.delta.content))
            return pieces
        stream = await self.client.messages.create(
            model=MODEL, max_tokens=MAX_TOKENS, messages=messages, stream=True)
        async for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                pieces.append((now(), event.delta.text))
        return pieces

    async def _execute(self, name: str, arguments: str) -> str:
        output = await self.tools[name].execute(arguments)
        return output if isinstance(output, str) else output.text

    async def _openai(self, messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        if self.raw is not None:
            from openai.types.chat import ChatCompletion

            reply = await self.client.post(
                "/chat/completions", cast_to=ChatCompletion,
                content=self.raw({"model": MODEL, "messages": messages, "tools": self.schema}))
        else:
            reply = await self.client.chat.completions.create(
                model=MODEL, messages=messages, tools=self.schema)
        return [(c.id, c.function.name, c.function.arguments)
                for c in reply.choices[0].message.tool_calls or []]

    async def _openai_stream(self, messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        stream = await self.client.chat.completions.create(
            model=MODEL, messages=messages, tools=self.schema, stream=True,
            stream_options={"include_usage": True})
        calls: dict[int, list[str]] = {}
        async for chunk in stream:
            for choice in chunk.choices:
                for frag in choice.delta.tool_calls or []:
                    call = calls.setdefault(frag.index, ["", "", ""])
                    call[0] = frag.id or call[0]
                    if frag.function:
                        call[1] = frag.function.name or call[1]
                        call[2] += frag.function.arguments or ""
        return [(c[0], c[1], c[2]) for _, c in sorted(calls.items())]

    def _anthropic_extra(self) -> dict[str, Any]:
        """The system prompt, as the daemon sends it (cached), when it is asked for."""
        if self.system is None:
            return {}
        return {"system": [{"type": "text", "text": self.system,
                            "cache_control": {"type": "ephemeral"}}]}

    async def _anthropic(self, messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        reply = await self.client.messages.create(
            model=MODEL, max_tokens=MAX_TOKENS, messages=messages, tools=self.schema,
            **self._anthropic_extra())
        return [(b.id, b.name, json.dumps(b.input)) for b in reply.content
                if b.type == "tool_use"]

    async def _anthropic_stream(
        self, messages: list[dict[str, Any]]
    ) -> list[tuple[str, str, str]]:
        stream = await self.client.messages.create(
            model=MODEL, max_tokens=MAX_TOKENS, messages=messages, tools=self.schema,
            stream=True, **self._anthropic_extra())
        calls: list[list[str]] = []
        async for event in stream:
            if event.type == "content_block_start" and event.content_block.type == "tool_use":
                calls.append([event.content_block.id, event.content_block.name, ""])
            elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                calls[-1][2] += event.delta.partial_json
        return [(c[0], c[1], c[2]) for c in calls]

    def _append(self, messages: list[dict[str, Any]], calls: list[tuple[str, str, str]],
                outputs: list[str]) -> None:
        if self.provider == "openai":
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                for i, n, a in calls]})
            messages += [{"role": "tool", "tool_call_id": i, "content": out}
                         for (i, _, _), out in zip(calls, outputs, strict=True)]
            return
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": i, "name": n, "input": json.loads(a or "{}")}
            for i, n, a in calls]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": i, "content": out}
            for (i, _, _), out in zip(calls, outputs, strict=True)]})

    async def close(self) -> None:
        """Release the SDK client's connections."""
        await self.client.close()


def direct_tools(workdir: str) -> dict[str, Any]:
    """The tools a floor calls directly, without the registry."""
    from harness9.tools.bash import BashTool
    from harness9.tools.read_file import ReadFileTool

    return {"read_file": ReadFileTool(workdir), "bash": BashTool(workdir)}
