"""The approval policy: modes × tools, rules, chained commands, session memory."""

from __future__ import annotations

from typing import Any

import pytest

from harness9.schema import ToolKind
from harness9.tools import default_registry
from harness9.tools.approvals.policy import (
    Action,
    ApprovalPolicy,
    DecidedBy,
    Decision,
    PolicyError,
    SessionApprovals,
)
from harness9.tools.approvals.subjects import PathSpellings

# The kinds the built-in tools declare (an MCP tool's is `other`).
KIND_OF = default_registry("/nonexistent-workspace").kind_of

CALLS: dict[str, dict[str, Any]] = {
    "read_file": {"path": "src/a.py"},
    "write_file": {"path": "src/a.py", "content": "x"},
    "edit_file": {"path": "src/a.py", "source_text": "a", "target_text": "b"},
    "bash": {"command": "npm test"},
    "mcp__time__now": {},
}
A, D, Q = Action.ALLOW, Action.DENY, Action.ASK
MODE_TABLE = {
    "ask": [A, Q, Q, Q, Q],
    "auto-edit": [A, A, A, Q, Q],
    "yolo": [A, A, A, A, A],
    "read-only": [A, D, D, D, D],
}


def decide(policy: ApprovalPolicy, tool: str, arguments: dict[str, Any] | None = None,
           memory: SessionApprovals | None = None, root: str | None = None) -> Decision:
    return policy.decide(tool, KIND_OF(tool), arguments if arguments is not None else
                         CALLS[tool], memory or SessionApprovals(), root)


def policy(**raw: Any) -> ApprovalPolicy:
    return ApprovalPolicy.from_setting(raw)


@pytest.mark.parametrize("mode", list(MODE_TABLE))
def test_each_mode_decides_each_tool(mode: str) -> None:
    actions = [decide(policy(mode=mode), tool).action for tool in CALLS]
    assert actions == MODE_TABLE[mode]
    assert all(decide(policy(mode=mode), tool).by is DecidedBy.MODE for tool in CALLS)


@pytest.mark.parametrize("mode", list(MODE_TABLE))
def test_the_mode_goes_by_the_tool_s_kind_not_its_name(mode: str) -> None:
    tools = {"peek": ToolKind.READ, "patch": ToolKind.EDIT, "run": ToolKind.EXECUTE,
             "mcp__x__y": ToolKind.OTHER}
    arguments: dict[str, Any] = {"path": "a.py", "command": "ls"}
    actions = [policy(mode=mode).decide(name, kind, arguments, SessionApprovals()).action
               for name, kind in tools.items()]
    # The same columns as read_file, write_file, bash and an MCP tool in the table.
    expected = MODE_TABLE[mode]
    assert actions == [expected[0], expected[1], expected[3], expected[4]]


def test_rules_see_an_execute_tool_s_command_and_a_file_tool_s_path() -> None:
    rules = policy(allow=["run(make *)", "peek(src/*.py)"], deny=["patch(**/.env)"])
    memory = SessionApprovals()
    assert rules.decide("run", ToolKind.EXECUTE, {"command": "make a/b"}, memory).action is A
    assert rules.decide("run", ToolKind.EXECUTE, {"command": "make && rm x"}, memory).action is Q
    assert rules.decide("peek", ToolKind.READ, {"path": "src/a.py"}, memory).action is A
    env = {"path": "conf/.env"}
    assert rules.decide("patch", ToolKind.EDIT, env, memory).action is D
    # A tool of another kind is matched by its name, whatever its arguments say.
    assert rules.decide("patch", ToolKind.OTHER, env, memory).action is Q


def test_the_default_mode_is_ask_and_can_be_changed() -> None:
    assert ApprovalPolicy().mode == "ask"
    assert ApprovalPolicy.from_setting({}).mode == "ask"
    assert ApprovalPolicy.from_setting({}, default_mode="yolo").mode == "yolo"
    assert ApprovalPolicy.from_setting({"mode": "read-only"}, default_mode="yolo").mode == (
        "read-only"
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"mode": "sometimes"}, "mode must be one of ask, auto, auto-edit, yolo, read-only"),
        ({"allow": "bash"}, "allow must be a list of rules"),
        ({"deny": ["bash(rm"]}, "deny: 'bash(rm' is not a rule"),
        ({"allow": [3]}, "allow: 3 is not a rule"),
    ],
)
def test_bad_settings_say_what_is_wrong(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("(", r"\(")):
        ApprovalPolicy.from_setting(raw)


def test_allow_rules_match_commands_by_glob() -> None:
    rules = policy(allow=["bash(npm test*)", "bash(git status)"])
    assert decide(rules, "bash", {"command": "npm test -- --watch=false"}) == Decision(
        A, DecidedBy.RULE, "bash(npm test*)"
    )
    assert decide(rules, "bash", {"command": "git status"}).action is A
    assert decide(rules, "bash", {"command": "git status --porcelain"}).action is Q
    assert decide(rules, "bash", {"command": "npm install"}).action is Q


def test_a_chain_is_allowed_only_when_every_command_is() -> None:
    rules = policy(allow=["bash(ls*)", "bash(npm test*)"])
    assert decide(rules, "bash", {"command": "ls && npm test"}) == Decision(
        A, DecidedBy.RULE, "bash(ls*), bash(npm test*)"
    )
    for command in ["ls && rm -rf x", "ls; rm -rf x", "ls | sh", "ls $(rm -rf x)",
                    "ls `rm -rf x`", "ls\nrm -rf x", "ls & rm -rf x", 'ls "$(rm x)"']:
        assert decide(rules, "bash", {"command": command}).action is Q, command


def test_what_the_splitter_cannot_follow_is_never_allowed_by_a_rule() -> None:
    rules = policy(mode="yolo", allow=["bash(*)"])
    unparsable = {"command": "for f in *; do rm $f; done"}
    assert decide(rules, "bash", unparsable) == Decision(A, DecidedBy.MODE)  # yolo still runs it
    assert decide(policy(allow=["bash(*)"]), "bash", unparsable).action is Q


def test_deny_comes_before_allow_and_sees_every_part() -> None:
    rules = policy(mode="yolo", allow=["bash"], deny=["bash(rm *)", "write_file(**/.env)"])
    assert decide(rules, "bash", {"command": "ls && rm -rf x"}) == Decision(
        D, DecidedBy.RULE, "bash(rm *)"
    )
    assert decide(rules, "bash", {"command": "echo $(rm -rf x)"}).action is D
    assert decide(rules, "bash", {"command": "ls"}) == Decision(A, DecidedBy.RULE, "bash")
    env = {"path": "config/.env", "content": ""}
    assert decide(rules, "write_file", env).action is D
    assert decide(rules, "write_file", {"path": ".env", "content": ""}).action is D


def test_path_globs_keep_star_within_a_folder() -> None:
    rules = policy(allow=["write_file(src/*.py)", "edit_file(tests/**)"])
    assert decide(rules, "write_file", {"path": "src/a.py", "content": ""}).action is A
    assert decide(rules, "write_file", {"path": "src/sub/a.py", "content": ""}).action is Q
    assert decide(rules, "edit_file", {"path": "tests/a/b/c.py", "source_text": "",
                                       "target_text": ""}).action is A


def test_paths_are_matched_as_the_sandbox_reads_them() -> None:
    rules = policy(allow=["write_file(src/**)"])
    sneaky = {"path": "src/../.env", "content": ""}
    assert decide(rules, "write_file", sneaky).action is Q
    absolute = {"path": "/ws/src/a.py", "content": ""}
    assert decide(rules, "write_file", absolute, root="/ws").action is A
    assert decide(rules, "write_file", {"path": "./src/a.py", "content": ""}).action is A


def test_mcp_rules_match_the_tool_name() -> None:
    rules = policy(allow=["mcp__time__now"], deny=["mcp__fs__write"])
    assert decide(rules, "mcp__time__now").action is A
    assert decide(rules, "mcp__fs__write", {}).action is D


def test_session_memory_allows_a_file_tool_anywhere_and_bash_per_command() -> None:
    memory = SessionApprovals()
    memory.remember("edit_file", ToolKind.EDIT, CALLS["edit_file"])
    memory.remember("bash", ToolKind.EXECUTE, {"command": "npm test"})
    ask = policy()
    other_path = {"path": "docs/b.md", "source_text": "a", "target_text": "b"}
    assert decide(ask, "edit_file", other_path, memory) == Decision(A, DecidedBy.SESSION)
    assert decide(ask, "write_file", memory=memory).action is Q  # another tool
    assert decide(ask, "bash", {"command": "  npm test "}, memory).action is A
    assert decide(ask, "bash", {"command": "npm test && rm -rf x"}, memory).action is Q
    denied = policy(deny=["edit_file(docs/**)"])
    assert decide(denied, "edit_file", other_path, memory).action is D  # deny still wins


def test_every_file_of_a_change_of_several_files_is_decided_on() -> None:
    def files(*paths: str) -> tuple[PathSpellings, ...]:
        return tuple(PathSpellings(path, path) for path in paths)

    def verdict(raw: dict[str, Any], *paths: str) -> Decision:
        return ApprovalPolicy.from_setting(raw).decide(
            "rename", ToolKind.EDIT, {"path": "src/a.py"}, SessionApprovals(),
            files=files(*paths))

    edits = {"mode": "auto-edit"}
    assert verdict(edits, "src/a.py", "src/b.py").action is A
    protected = verdict(edits, "src/a.py", ".vscode/settings.json", ".git/config")
    assert (protected.action, protected.reason) == (
        Q, "writes .vscode/settings.json, which configures the editor, and can make it start "
           "programs")
    assert verdict({"mode": "read-only"}, "src/a.py").action is D
    rules = {"mode": "ask", "allow": ["rename(src/**)"], "deny": ["rename(secret/**)"]}
    assert verdict(rules, "src/a.py", "src/b.py").by is DecidedBy.RULE  # every file matches
    assert verdict(rules, "src/a.py", "docs/b.md").action is Q  # one does not: the mode asks
    assert verdict(rules, "src/a.py", "secret/key.txt").action is D  # any file denied: denied
    outside = ApprovalPolicy.from_setting(rules).decide(
        "rename", ToolKind.EDIT, {"path": "src/a.py"}, SessionApprovals(),
        files=(PathSpellings("src/a.py", "src/a.py"), PathSpellings("../x.py", None)))
    assert outside.action is Q  # a file outside the workspace is never allowed by a rule
