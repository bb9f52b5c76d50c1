"""Tool calls get ids unique within their session for everything but the model, which keeps
its own (some local servers number their calls afresh each answer, or repeat one in it)."""

from __future__ import annotations

from harness9.engine.call_ids import CallIds, with_unique_ids
from harness9.schema import Message, Role, ToolCall


def answer(*ids: str) -> Message:
    calls = tuple(ToolCall(id=i, name="bash", arguments="{}") for i in ids)
    return Message(role=Role.ASSISTANT, content="", tool_calls=calls)


def test_repeated_ids_get_unique_ones_and_keep_the_models() -> None:
    ids = CallIds()
    first = ids.assign(answer("call_0", "call_0"))
    second = ids.assign(answer("call_0", "call_0~2", "x"))
    assert [c.unique_id for c in first.tool_calls] == ["call_0", "call_0~2"]
    assert [c.unique_id for c in second.tool_calls] == ["call_0~3", "call_0~2~2", "x"]
    assert [c.id for c in second.tool_calls] == ["call_0", "call_0~2", "x"]


def test_a_session_goes_on_with_the_ids_its_history_took() -> None:
    history = [Message.user("go"), CallIds().assign(answer("a", "a"))]
    assert [c.unique_id for c in CallIds(history).assign(answer("a")).tool_calls] == ["a~3"]


def test_a_stored_history_without_unique_ids_gets_them_in_order() -> None:
    history = [answer("a"), Message.user("r"), answer("a")]
    with_unique_ids(history)
    assert [c.unique_id for m in history for c in m.tool_calls] == ["a", "a~2"]
    with_unique_ids(history)  # a second pass changes nothing
    assert [c.unique_id for m in history for c in m.tool_calls] == ["a", "a~2"]


def test_a_child_runs_calls_are_named_under_its_task_call() -> None:
    ids = CallIds(prefix="t1/")
    assert [c.unique_id for c in ids.assign(answer("call_0", "call_0")).tool_calls] == [
        "t1/call_0", "t1/call_0~2"]
    assert [c.id for c in ids.assign(answer("call_0")).tool_calls] == ["call_0"]
