"""The `initialize` answer given before the SDK loads is the SDK's own answer."""

from __future__ import annotations

import json

import pytest

from harness9.acp.agent import Harness9Agent
from harness9.acp.hello import early_answer


def _request(**params: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize",
                       "params": params}).encode()


async def test_the_early_answer_is_what_the_sdk_side_answers() -> None:
    answer = early_answer(_request(protocolVersion=1, clientCapabilities={}))
    assert answer is not None and answer.endswith(b"\n") and answer.count(b"\n") == 1
    message = json.loads(answer)
    assert message["id"] == 7 and message["jsonrpc"] == "2.0"
    sdk = await Harness9Agent().initialize(protocol_version=1)
    assert message["result"] == sdk.model_dump(mode="json", by_alias=True, exclude_none=True,
                                               exclude_unset=True)


@pytest.mark.parametrize("line", [
    b"not json",
    b'{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}',
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}',
    b'{"jsonrpc": "2.0", "id": true, "method": "initialize", "params": {"protocolVersion": 1}}',
    b'{"jsonrpc": "2.0", "method": "initialize", "params": {"protocolVersion": 1}}',
])
def test_anything_but_a_well_formed_initialize_is_left_to_the_sdk(line: bytes) -> None:
    assert early_answer(line) is None
