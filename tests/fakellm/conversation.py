"""The check both real APIs make of a conversation before they answer: every tool call is
answered by its result right after it, and no result answers a call that was not made; with
Anthropic's extended thinking, the tool loop's assistant message starts with its signed
thinking block.

A request that breaks it gets the 400 the real service sends, so a daemon that ever sends such a
history fails its tests as it would fail its users.
"""

from __future__ import annotations

from typing import Any


def signature(thinking: str) -> str:
    """The signature the fake gives a thinking block (the service checks it on the way back)."""
    return f"sig-{len(thinking)}-{sum(map(ord, thinking)) % 9973}"


def openai_error(body: dict[str, Any]) -> str | None:
    """What the Chat Completions API says of a broken conversation (None: it holds)."""
    waiting: list[str] = []
    for message in body.get("messages") or []:
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                return ("Invalid parameter: messages with role 'tool' must be a response to a "
                        f"preceeding message with 'tool_calls' ({call_id!r}).")
            waiting.remove(call_id)
            continue
        if waiting:
            return ("An assistant message with 'tool_calls' must be followed by tool messages "
                    f"responding to each 'tool_call_id'. The following tool_call_ids did not "
                    f"have response messages: {', '.join(waiting)}")
        if role == "assistant":
            waiting = [call.get("id") for call in message.get("tool_calls") or []]
    return None


def anthropic_error(body: dict[str, Any]) -> str | None:
    """What the Messages API says of a broken conversation (None: it holds)."""
    return _pairing_error(body) or _thinking_error(body)


def _thinking_error(body: dict[str, Any]) -> str | None:
    """With thinking on, an assistant message that calls tools during the tool loop must start
    with its signed thinking block, as the service returned it."""
    thinking = body.get("thinking") or {}
    if thinking.get("type") != "enabled":
        return None
    if int(thinking.get("budget_tokens", 0)) >= int(body.get("max_tokens", 0)):
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    messages = body.get("messages") or []
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    blocks = last.get("content") if last is not None else None
    if not isinstance(blocks, list) or not any(b.get("type") == "tool_use" for b in blocks):
        return None
    first = blocks[0]
    if first.get("type") not in ("thinking", "redacted_thinking"):
        return ("messages: Expected `thinking` or `redacted_thinking`, but found "
                f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message "
                "must start with a thinking block")
    if first.get("type") == "thinking" and first.get("signature") != signature(
            str(first.get("thinking", ""))):
        return "messages: invalid `signature` in `thinking` block"
    return None


def _pairing_error(body: dict[str, Any]) -> str | None:
    """Tool calls and their results must pair up, message after message."""
    asked: list[str] = []
    for index, message in enumerate(body.get("messages") or []):
        blocks = message.get("content")
        blocks = blocks if isinstance(blocks, list) else []
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if message.get("role") == "user":
            missing = [i for i in asked if i not in results]
            if missing:
                return (f"messages.{index}: `tool_use` ids were found without `tool_result` "
                        f"blocks immediately after: {', '.join(missing)}")
            stray = [i for i in results if i not in asked]
            if stray:
                return (f"messages.{index}.content: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {stray[0]}")
            asked = []
        else:
            if asked:
                return (f"messages.{index}: `tool_use` ids were found without `tool_result` "
                        f"blocks immediately after: {', '.join(asked)}")
            asked = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
    if asked:
        return ("`tool_use` ids were found without `tool_result` blocks immediately after: "
                + ", ".join(asked))
    return None
