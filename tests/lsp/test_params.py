"""agent/run and agent/cancel params: converted from the wire, each bad field named."""

from __future__ import annotations

import pytest

from harness9.lsp.params import ParamsError, parse_cancel_params, parse_run_params


def test_tool_environment_is_not_a_run_setting() -> None:
    with pytest.raises(ParamsError, match="toolEnvironment: is daemon-wide"):
        parse_run_params({"prompt": "x", "toolEnvironment": {}})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ([], "agent/run params must be an object, got list"),
        ({"prompt": "x", "workDoneToken": True}, "workDoneToken must be a string or an integer"),
        ({"prompt": "x", "sessionId": ""}, "sessionId must be a non-empty string"),
        ({"prompt": "x", "toolTimeoutMs": 1.5}, "toolTimeoutMs: must be an integer ≥ 1"),
        ({"prompt": "x", "thinking": 1}, "thinking: must be true or false, got 1"),
    ],
)
def test_bad_run_params(params: object, message: str) -> None:
    with pytest.raises(ParamsError) as info:
        parse_run_params(params)
    assert str(info.value).startswith(message)


def test_cancel_needs_an_id() -> None:
    with pytest.raises(ParamsError, match="runId or sessionId is required"):
        parse_cancel_params({})
    assert parse_cancel_params({"sessionId": "s-1"}).session_id == "s-1"
