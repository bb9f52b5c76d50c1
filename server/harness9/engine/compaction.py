"""Making a long conversation fit the model's window again.

Two steps, cheapest first. *Prune*: the text of old tool results is replaced by a short marker
(the model can run the tool again if it needs the output). *Summary*: if the request is still
too large, one call to the same model, with no tools, writes a handoff summary of the older
conversation, which then stands in for it. What is kept verbatim: the system prompt, the latest
user prompt, and the last `KEEP_TURNS` model replies with their tool results. A tool call is never
separated from its result: a reply and its results are kept or replaced together.

The summary request is itself bounded (each message's text is capped and the oldest part is
dropped first), so compacting works also when the window is already full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness9.engine.context import CHARS_PER_TOKEN, ContextPolicy, messages_tokens
from harness9.provider.llm_provider import LLMProvider
from harness9.schema import Message, Plan, Role

KEEP_TURNS = 2
PRUNED = "[tool output removed to save context ({chars} characters); run the tool again if needed]"
SUMMARY_HEADER = "Summary of the earlier conversation (written when the context was compacted):"
PLAN_HEADER = "Your current plan (update_plan; keep it up to date):"
SUMMARY_ACK = "Understood. I will continue from this summary."
_PIECE_CHARS = 2_000  # cap on one message's text inside the summary request
_RESULT_CHARS = 800  # cap on one tool result's text there
_SUMMARY_SHARE = 0.5  # the summary request uses at most this share of the window

SUMMARY_INSTRUCTIONS = """\
You are compacting a coding agent's conversation so that it fits the model's context window.
Write a handoff summary that lets the agent continue the work without the original messages:
- the user's requests and constraints, in their own words where it matters;
- what was done: files read, created or changed (with paths), commands run and their outcomes;
- decisions made and why; errors met and how they were resolved;
- what remains to do, and anything the agent was in the middle of.
Be concrete and brief. Write only the summary."""


@dataclass(frozen=True, slots=True)
class Compaction:
    """What a compaction did: the estimated request tokens before and after, and how."""

    before: int
    after: int
    method: str  # "prune" | "summary" | "none"


def is_prompt(message: Message) -> bool:
    """A user prompt (not a tool result)."""
    return message.role is Role.USER and message.tool_call_id is None


def kept_from(history: Sequence[Message]) -> tuple[int, int]:
    """(index of the latest user prompt, index where the verbatim recent turns start).

    The recent part starts at the `KEEP_TURNS`-th last model reply, or at the latest prompt when
    fewer replies followed it; it never starts at a tool result.
    """
    prompt = next((i for i in range(len(history) - 1, -1, -1) if is_prompt(history[i])), 0)
    replies = [i for i in range(prompt + 1, len(history)) if history[i].role is Role.ASSISTANT]
    start = replies[-KEEP_TURNS] if len(replies) >= KEEP_TURNS else prompt
    return prompt, start


def prune(history: list[Message], policy: ContextPolicy) -> int:
    """Replace old tool results by a marker, in place, if it saves a worthwhile amount;
    returns the tokens saved (0: nothing changed)."""
    _, start = kept_from(history)
    candidates = [
        i for i in range(start)
        if history[i].tool_call_id is not None and len(history[i].content) > len(PRUNED) + 200
    ]
    saved = sum(len(history[i].content) - len(PRUNED) for i in candidates) // CHARS_PER_TOKEN
    if saved < max(policy.window // 50, 100):
        return 0
    for i in candidates:
        old = history[i]
        history[i] = Message(
            role=old.role, content=PRUNED.format(chars=len(old.content)),
            tool_call_id=old.tool_call_id, is_error=old.is_error,
        )
    return saved


async def summarize(
    history: list[Message], provider: LLMProvider, policy: ContextPolicy, plan: Plan | None = None
) -> bool:
    """Replace the older conversation by a summary the model writes, in place; False when there
    is nothing old enough to summarize, or the summary would not be shorter. The summary ends
    with `plan` (the model's latest plan), whose tool calls it replaces. Provider failures are
    raised."""
    head = 1 if history and history[0].role is Role.SYSTEM else 0
    prompt, start = kept_from(history)
    older = [*history[head:prompt], *history[prompt + 1 : start]] if start > prompt else (
        history[head:prompt]
    )
    if not older:
        return False
    request = [Message.system(SUMMARY_INSTRUCTIONS), Message.user(transcript(older, policy))]
    answer, _ = await provider.generate(request, None)
    summary = answer.content.strip() or "(the model wrote no summary)"
    if plan is not None:
        summary += f"\n\n{PLAN_HEADER}\n{plan.checklist()}"
    replacement = [
        Message.user(f"{SUMMARY_HEADER}\n\n{summary}"),
        Message(role=Role.ASSISTANT, content=SUMMARY_ACK),
    ]
    if messages_tokens(replacement) >= messages_tokens(older):
        return False  # a summary longer than what it replaces saves nothing
    kept = [history[prompt], *history[start:]] if start > prompt else history[prompt:]
    history[head:] = [*replacement, *kept]
    return True


def transcript(messages: Sequence[Message], policy: ContextPolicy) -> str:
    """The conversation as text for the summary request, within its share of the window:
    each message capped, the oldest dropped first (an earlier summary is always kept)."""
    pieces = [_piece(m) for m in messages]
    budget = int(policy.window * _SUMMARY_SHARE) * CHARS_PER_TOKEN
    first = pieces[0] if messages[0].content.startswith(SUMMARY_HEADER) else None
    kept: list[str] = []
    used = len(first) if first is not None else 0
    for piece in reversed(pieces[1:] if first is not None else pieces):
        if used + len(piece) > budget:
            kept.append("[… the oldest part of the conversation is left out …]")
            break
        kept.append(piece)
        used += len(piece)
    ordered = ([first] if first is not None else []) + kept[::-1]
    return "Summarize this conversation:\n\n" + "\n\n".join(ordered)


def _piece(message: Message) -> str:
    if message.tool_call_id is not None:
        label = "tool error" if message.is_error else "tool result"
        return f"[{label} {message.tool_call_id}]\n{_cap(message.content, _RESULT_CHARS)}"
    text = _cap(message.content, _PIECE_CHARS * (3 if message.content.startswith(SUMMARY_HEADER)
                                                  else 1))
    calls = "".join(
        f"\n(calls {c.name} {c.id}: {_cap(c.arguments, 500)})" for c in message.tool_calls
    )
    return f"[{message.role.value}]\n{text}{calls}"


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


async def compact(
    history: list[Message],
    provider: LLMProvider,
    policy: ContextPolicy,
    estimate: int,
    *,
    tools: int = 0,
    force: bool = False,
    plan: Plan | None = None,
) -> Compaction:
    """Make `history` fit below the policy's threshold (prune, then summary, which restates
    `plan`). `force` (the provider said the request is too long, or the user asked) also
    summarizes when pruning alone would do."""
    pruned = prune(history, policy)
    after = tools + messages_tokens(history) if pruned else estimate
    if pruned and after <= policy.threshold and not force:
        return Compaction(estimate, after, "prune")
    if await summarize(history, provider, policy, plan):
        return Compaction(estimate, tools + messages_tokens(history), "summary")
    return Compaction(estimate, after, "prune" if pruned else "none")
