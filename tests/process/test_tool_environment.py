"""What tool processes see of the daemon's environment: the filter itself, then real bash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness9.process.reaper import TOOL_SESSION_ENV
from harness9.process.tool_environment import ToolEnvironment
from harness9.redaction import looks_secret
from harness9.tools.bash import BashTool

pytestmark = pytest.mark.timeout(30)

SECRETS = {
    "OPENAI_API_KEY": "sk-openai-secret-value",
    "ANTHROPIC_API_KEY": "sk-ant-secret-value",
    "GITHUB_TOKEN": "ghp-secret-value",
    "MY_SECRET": "my-secret-value",
    "db_password": "hunter2-secret-value",
    "npm_config__authToken": "npm-secret-value",
}
PLAIN = {"PATH": "/usr/bin:/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "VISIBLE_VAR": "visible"}
CREDENTIALS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


@pytest.mark.parametrize("name", [*SECRETS, "SSH_KEY_PATH", "Keychain", "AWS_SECRET_ACCESS_KEY"])
def test_secret_looking_names(name: str) -> None:
    assert looks_secret(name)


@pytest.mark.parametrize("name", [*PLAIN, "EDITOR", "XDG_CONFIG_HOME", TOOL_SESSION_ENV])
def test_plain_names(name: str) -> None:
    assert not looks_secret(name)


def test_default_keeps_the_plain_variables_only() -> None:
    assert ToolEnvironment().apply({**SECRETS, **PLAIN}) == PLAIN


def test_include_wins_over_exclude_and_the_default_removals() -> None:
    env = ToolEnvironment(include=("GITHUB_*", "VISIBLE_VAR"), exclude=("VISIBLE_*", "LANG"))
    assert env.apply({**SECRETS, **PLAIN}) == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/u",
        "VISIBLE_VAR": "visible",
        "GITHUB_TOKEN": "ghp-secret-value",
    }


def test_a_credential_needs_its_exact_name_in_include() -> None:
    everything = ToolEnvironment(include=("*",)).protecting(CREDENTIALS)
    kept = everything.apply({**SECRETS, **PLAIN})
    assert not kept.keys() & set(CREDENTIALS)
    assert kept.keys() == (SECRETS.keys() | PLAIN.keys()) - set(CREDENTIALS)
    named = ToolEnvironment(include=("OPENAI_API_KEY",)).protecting(CREDENTIALS)
    assert named.apply(SECRETS) == {"OPENAI_API_KEY": "sk-openai-secret-value"}


def test_globs_are_case_sensitive_and_match_the_whole_name() -> None:
    env = ToolEnvironment(exclude=("visible_var", "VIS"))
    assert env.keeps("VISIBLE_VAR")
    assert not ToolEnvironment(exclude=("VIS*",)).keeps("VISIBLE_VAR")


async def run_env(workspace: Path, environment: ToolEnvironment | None = None) -> str:
    """What `env` prints through the real bash tool (its default filter when none is given)."""
    if environment is None:
        tool = BashTool(workspace)
    else:
        tool = BashTool(workspace, environment=environment)
    output = await tool.execute(json.dumps({"command": "env"}))
    return output.text


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**SECRETS, "VISIBLE_VAR": "visible"}.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("secret_env")
async def test_bash_env_shows_no_secret(workspace: Path) -> None:
    text = await run_env(workspace)
    for value in SECRETS.values():
        assert value not in text
    names = {line.split("=", 1)[0] for line in text.splitlines()}
    assert {"PATH", "HOME", "VISIBLE_VAR", TOOL_SESSION_ENV} <= names


@pytest.mark.usefixtures("secret_env")
async def test_bash_env_follows_include_and_exclude(workspace: Path) -> None:
    environment = ToolEnvironment(include=("GITHUB_TOKEN", "*"), exclude=("VISIBLE_*",))
    text = await run_env(workspace, environment.protecting(CREDENTIALS))
    assert "GITHUB_TOKEN=ghp-secret-value" in text.splitlines()
    assert "MY_SECRET=my-secret-value" in text.splitlines()  # "*" re-admits it too
    assert "openai-secret" not in text and "sk-ant-secret" not in text
    assert "VISIBLE_VAR=visible" in text.splitlines()  # include wins over exclude
    only_exclude = await run_env(workspace, ToolEnvironment(exclude=("VISIBLE_*",)))
    assert "VISIBLE_VAR" not in only_exclude
    assert TOOL_SESSION_ENV in only_exclude  # the process reaper's mark is always there
