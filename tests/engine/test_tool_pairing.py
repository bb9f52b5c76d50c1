"""Every tool call in a history has its result, whatever stopped the run and whatever was stored:
both APIs refuse a conversation with a call that has no result (or a result with no call)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness9.engine import AgentEngine, EventBus
from harness9.engine.tool_pairing import pair_tool_calls
from harness9.schema import Message, Role, ToolCall, ToolKind, ToolResult
from harness9.tools import default_registry
from tests.engine.scripted import Reply, ScriptedProvider


def bash(command: str) -> tuple[str, str]:
    return ("bash", json.dumps({"command": command}))


def assert_paired(history: Sequence[Message]) -> None:
    """Each assistant message's calls are answered, in order, right after it; nothing else is."""
    i = 0
    while i < len(history):
        message = history[i]
        i += 1
        if message.role is Role.ASSISTANT and message.tool_calls:
            wanted = [call.id for call in message.tool_calls]
            got = [m.tool_call_id for m in history[i : i + len(wanted)]]
            assert got == wanted, f"calls {wanted} answered by {got}"
            i += len(wanted)
        else:
            assert message.tool_call_id is None, f"a result with no call: {message.tool_call_id}"


class _Stalls:
    """A batch observer whose `before_batch` takes long (a checkpoint of a big tree)."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    async def before_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        self.entered.set()
        await asyncio.sleep(30)

    async def after_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        return None


async def test_a_run_cancelled_before_its_calls_start_leaves_them_answered(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider([Reply("", [bash("echo a"), bash("echo b")]), Reply("done")])
    observer = _Stalls()
    engine = AgentEngine(provider, default_registry(tmp_path), bus=EventBus(),
                         batch_observer=observer)
    history: list[Message] = []
    task = asyncio.create_task(engine.run("x", history))
    await asyncio.wait_for(observer.entered.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_paired(history)
    assert [m.tool_call_id for m in history if m.tool_call_id] == ["call_1_0", "call_1_1"]
    assert all(m.is_error for m in history if m.tool_call_id)


async def test_the_next_run_sends_a_history_with_every_call_answered(tmp_path: Path) -> None:
    call = ToolCall(id="t2", name="bash", arguments='{"command": "ls"}')
    stored = [
        Message.user("first"),
        Message(role=Role.ASSISTANT, content="", tool_calls=(call,)),
    ]
    provider = ScriptedProvider([Reply("hello")])
    engine = AgentEngine(provider, default_registry(tmp_path), bus=EventBus())
    await engine.run("again", stored)
    sent = provider.calls[0].messages
    assert_paired(sent)
    assert sent[2].tool_call_id == "t2" and sent[2].is_error
    assert sent[3].content == "again"


def test_pairing_answers_missing_calls_and_drops_results_without_a_call() -> None:
    calls = tuple(ToolCall(id=f"c{i}", name="bash", arguments="{}") for i in range(3))
    answered = ToolResult(tool_call_id="c1", output="ok")
    history = [
        Message.user("go"),
        Message(role=Role.ASSISTANT, content="", tool_calls=calls),
        Message.observation(answered),
        Message.observation(ToolResult(tool_call_id="stray", output="?")),
        Message.user("next"),
    ]
    assert pair_tool_calls(history) == 3  # two answered, one dropped
    assert_paired(history)
    assert [m.tool_call_id for m in history] == [None, None, "c0", "c1", "c2", None]
    assert history[3].content == "ok"
    assert pair_tool_calls(history) == 0


_IDS = st.sampled_from(["a", "b", "c"])
_MESSAGES = st.one_of(
    st.builds(lambda ids: Message(role=Role.ASSISTANT, content="", tool_calls=tuple(
        ToolCall(i, "bash", "{}") for i in ids)), st.lists(_IDS, max_size=3)),
    st.builds(lambda i: Message(role=Role.USER, content="out", tool_call_id=i), _IDS),
    st.just(Message.user("more")),
    st.just(Message(role=Role.ASSISTANT, content="text")),
)


@given(st.lists(_MESSAGES, max_size=12))
@settings(max_examples=400, deadline=None)
def test_a_history_left_alone_is_one_that_holds_and_one_repaired_holds(
    messages: list[Message],
) -> None:
    # The quick check that spares a long history the repair must agree with the repair.
    history = list(messages)
    changes = pair_tool_calls(history)
    assert_paired(history)
    if changes == 0:
        assert all(a is b for a, b in zip(history, messages, strict=True))
    again = list(history)
    assert pair_tool_calls(again) == 0 and all(
        a is b for a, b in zip(again, history, strict=True))
