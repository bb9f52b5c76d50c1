"""Run settings: validation of each source, precedence, the client merge, approvals."""

from __future__ import annotations

import pytest

from harness9.process.sandbox import availability
from harness9.service.config.settings import (
    EnvironmentGlobs,
    RunSettings,
    SettingsError,
    client_section,
    from_environment,
    merge_client,
    parse_lenient,
    parse_overrides,
    resolve,
)


def test_precedence_run_over_client_over_env_over_defaults() -> None:
    env = from_environment({"HARNESS9_PROVIDER": "anthropic", "HARNESS9_MODEL": "env-model"})
    client, problems = parse_lenient({"model": "client-model", "maxTurns": 5})
    run = parse_overrides({"prompt": "x", "maxTurns": 2})
    merged = resolve(env, client, run)
    assert problems == []
    assert merged == RunSettings(provider="anthropic", model="client-model", max_turns=2)


def test_invalid_client_settings_are_reported_and_skipped() -> None:
    good, problems = parse_lenient({"maxTurns": "ten", "stream": False, "provider": "x"})
    assert good == {"stream": False}
    assert problems == [
        "provider: must be one of 'openai', 'anthropic', 'replay', got 'x'",
        "maxTurns: must be an integer ≥ 1, got 'ten'",
    ]
    assert parse_lenient([1]) == ({}, ["settings must be an object, got list"])


def test_client_settings_merge_key_by_key() -> None:
    current = {"provider": "replay", "model": "m", "max_turns": 4}
    for nothing in (None, {}, {"unknown": 1}, client_section({"harness9": {}})):
        assert merge_client(current, nothing) == (current, [])
    merged, problems = merge_client(current, {"model": None, "maxTurns": 0, "stream": False})
    assert merged == {"provider": "replay", "max_turns": 4, "stream": False}
    assert problems == ["maxTurns: must be an integer ≥ 1, got 0"]
    assert merge_client(current, "x") == (current, ["settings must be an object, got str"])


def test_client_section() -> None:
    assert client_section({"harness9": {"model": "m"}, "other": {}}) == {"model": "m"}
    assert client_section({"harness9": None}) is None
    assert client_section({"model": "m"}) == {"model": "m"}


def test_tool_environment_setting() -> None:
    good, problems = parse_lenient({"toolEnvironment": {"include": ["GH_*"]}})
    assert (good, problems) == ({"tool_environment": EnvironmentGlobs(include=("GH_*",))}, [])
    assert resolve(good).tool_environment == EnvironmentGlobs(("GH_*",), ())
    assert RunSettings().tool_environment == EnvironmentGlobs((), ())


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (["*"], "got ['*']"),
        ({"includes": ["*"]}, "got the unknown key 'includes'"),
        ({"include": "GH_TOKEN"}, "include must be a list of non-empty strings, got 'GH_TOKEN'"),
        ({"exclude": ["A", ""]}, "exclude must be a list of non-empty strings, got ['A', '']"),
    ],
)
def test_bad_tool_environment_is_reported(value: object, reason: str) -> None:
    good, problems = parse_lenient({"toolEnvironment": value, "maxTurns": 3})
    assert good == {"max_turns": 3}
    assert len(problems) == 1
    assert problems[0].startswith("toolEnvironment: must be {")
    assert problems[0].endswith(reason)


def test_invalid_environment_values_are_ignored() -> None:
    assert from_environment({"HARNESS9_PROVIDER": "gemini"}) == {}


def test_approvals_are_validated_and_the_environment_sets_the_default_mode() -> None:
    env = from_environment({"HARNESS9_APPROVALS": "yolo"})
    assert resolve(env).approval_policy().mode == "yolo"
    unknown = from_environment({"HARNESS9_APPROVALS": "sometimes"})
    default = "auto" if availability().works else "ask"
    assert resolve(unknown).approval_policy().mode == default
    no_sandbox = from_environment({"HARNESS9_SANDBOX": "off"})
    assert resolve(no_sandbox).approval_policy().mode == "ask"
    client = parse_overrides({"approvals": {"allow": ["bash(npm test*)"]}})
    policy = resolve(env, client).approval_policy()
    assert (policy.mode, [r.text for r in policy.allow]) == ("yolo", ["bash(npm test*)"])
    read_only = parse_overrides({"approvals": {"mode": "read-only"}})
    assert resolve(env, read_only).approval_policy().mode == "read-only"
    with pytest.raises(SettingsError, match="approvals: mode must be one of"):
        parse_overrides({"approvals": {"mode": "sometimes"}})
    with pytest.raises(SettingsError, match="approvals: deny: 'bash\\(' is not a rule"):
        parse_overrides({"approvals": {"deny": ["bash("]}})


def test_checkpoints_is_a_run_setting_defaulting_to_on() -> None:
    assert RunSettings().checkpoints is True
    assert resolve({}, parse_overrides({"checkpoints": False})).checkpoints is False
    with pytest.raises(SettingsError) as info:
        parse_overrides({"checkpoints": "no"})
    assert info.value.field == "checkpoints"


def test_mcp_servers_come_from_client_settings_or_the_environment_never_a_run() -> None:
    raw = {"time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]}}
    good, problems = parse_lenient({"mcpServers": raw})
    assert problems == []
    (server,) = resolve(good).mcp_servers
    assert (server.name, server.command, server.args) == (
        "time", "mcp-server-time", ("--local-timezone", "UTC"))
    env = from_environment({"HARNESS9_MCP_SERVERS": '{"t": {"command": "x"}}'})
    assert [s.name for s in env["mcp_servers"]] == ["t"]
    assert from_environment({"HARNESS9_MCP_SERVERS": "not json"}) == {}
    with pytest.raises(SettingsError, match="mcpServers: is daemon-wide"):
        parse_overrides({"mcpServers": raw})
    _, problems = parse_lenient({"mcpServers": {"t": {"args": []}}})
    assert problems == ["mcpServers: t.command must be a non-empty string, got None"]


def test_instructions_switch() -> None:
    assert RunSettings().instructions is True
    assert resolve(parse_overrides({"instructions": False})).instructions is False
    with pytest.raises(SettingsError, match="instructions: must be true or false"):
        parse_overrides({"instructions": "no"})
