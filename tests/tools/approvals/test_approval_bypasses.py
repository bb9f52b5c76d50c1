"""Ways past the approval rules that must not work: commands read differently from bash,
redirections, links, writes to files that decide what runs, and spellings of a command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness9.schema import ToolKind
from harness9.tools.approvals.policy import Action, ApprovalPolicy, DecidedBy, SessionApprovals

A, D, Q = Action.ALLOW, Action.DENY, Action.ASK
KINDS = {"read_file": ToolKind.READ, "write_file": ToolKind.EDIT, "edit_file": ToolKind.EDIT,
         "bash": ToolKind.EXECUTE}


def decide(raw: dict[str, Any], tool: str, root: Path | str | None = None,
           memory: SessionApprovals | None = None, **arguments: Any) -> Any:
    policy = ApprovalPolicy.from_setting(raw)
    return policy.decide(tool, KINDS[tool], arguments, memory or SessionApprovals(),
                         None if root is None else str(root))


GIT_STATUS = {"mode": "ask", "allow": ["bash(git status*)"]}


@pytest.mark.parametrize("command", [
    "git status \\ #; touch PWNED",  # `\ ` is part of a word: the `#` starts no comment
    "git status\\\n#; touch PWNED",  # a line continuation joins `#` to `status`
    "git status $[1<<X]\ntouch PWNED\nX]",  # `<<` in $[…] is no here-document
    "git status ${x<<X}\ntouch PWNED\nX}",  # nor in ${…}
    "git status > ../x",  # writes outside the workspace
    "git status >> notes.txt",
    "git status &> log",
    "git status >& log",
    "git status > $OUT",
    "git status\rtouch PWNED",  # one word `status\rtouch`, quoted in the normal form
])
def test_allow_rules_see_the_commands_and_writes_bash_sees(command: str) -> None:
    assert decide(GIT_STATUS, "bash", command=command).action is Q, command


@pytest.mark.parametrize("command", [
    "git status 2>&1", "git status >/dev/null", "git status 2>/dev/null", "git status >&2",
    "git status 2>&-", "git status < /dev/null", "git status &>/dev/null",
    "git status \\\n  --short", "git status # a comment; rm -rf /",
    "git status | git status --short",
])
def test_harmless_redirections_need_no_question(command: str) -> None:
    assert decide(GIT_STATUS, "bash", command=command).action is A, command


def test_a_write_file_rule_names_where_a_redirection_may_write(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    raw = {"allow": ["bash(make*)", "bash(cd *)", "write_file(build/**)"],
           "deny": ["write_file(**/.env)"]}
    allowed = decide(raw, "bash", tmp_path, command="make > build/log.txt 2>&1")
    assert (allowed.action, allowed.rule) == (A, "bash(make*), write_file(build/**)")
    assert decide(raw, "bash", tmp_path, command="make > log.txt").action is Q
    assert decide(raw, "bash", tmp_path, command="make > build/../../x").action is Q
    assert decide(raw, "bash", tmp_path, command="cd sub && make > build/x").action is Q
    denied = decide({**raw, "mode": "yolo"}, "bash", tmp_path, command="echo K=v >> .env")
    assert (denied.action, denied.rule) == (D, "write_file(**/.env)")
    # A link from build/ to outside the workspace is not inside it.
    (tmp_path / "build" / "out").symlink_to("/tmp")
    assert decide(raw, "bash", tmp_path, command="make > build/out/x").action is Q


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A workspace with `.env`, links to it, a link `cfg -> .`, and `src/escape -> ../.env`."""
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    (root / "settings").symlink_to(".env")
    (root / "cfg").symlink_to(".")
    (root / "src" / "escape").symlink_to("../.env")
    return root


@pytest.mark.parametrize("path", [".env", "settings", "cfg/.env", "cfg/cfg/settings",
                                  "src/escape", "./src/../.env"])
def test_a_path_deny_rule_follows_links(linked: Path, path: str) -> None:
    raw = {"mode": "yolo", "deny": ["read_file(.env)", "write_file(**/.env)"]}
    assert decide(raw, "read_file", linked, path=path).action is D, path
    assert decide(raw, "write_file", linked, path=path, content="x").action is D, path
    assert decide(raw, "read_file", linked, path="src/other.py").action is A


def test_the_real_path_of_a_workspace_opened_through_a_link_is_the_same_file(
    linked: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(linked)
    raw = {"mode": "yolo", "deny": ["read_file(.env)"]}
    for path in (str(linked / ".env"), str(alias / ".env"), str(linked / "settings")):
        assert decide(raw, "read_file", alias, path=path).action is D, path


def test_an_allow_rule_matches_only_where_the_path_really_leads(linked: Path) -> None:
    raw = {"allow": ["write_file(src/**)"]}
    assert decide(raw, "write_file", linked, path="src/new.py", content="").action is A
    assert decide(raw, "write_file", linked, path="src/escape", content="").action is Q
    (linked / "src" / "up").symlink_to("..")
    assert decide(raw, "write_file", linked, path="src/up/x.py", content="").action is Q
    outside = {"allow": ["write_file(**)"]}
    (linked / "src" / "out").symlink_to("/tmp")
    assert decide(outside, "write_file", linked, path="src/out/x", content="").action is Q


def test_paths_match_whatever_their_case_where_the_file_system_ignores_it(
    tmp_path: Path,
) -> None:
    from harness9.tools.approvals.protected import protection
    from harness9.tools.approvals.rules import Rule
    from harness9.tools.approvals.subjects import folds_case, spell_path

    root = tmp_path / "Case"
    root.mkdir()
    caseless = (tmp_path / "cASE").exists()  # Linux: no; macOS and Windows: usually
    assert folds_case(str(root)) is caseless
    rule = Rule.parse("read_file(.env)")
    spelled = spell_path(".ENV", str(root))
    matched = any(rule.matches("read_file", spelling, command=False,
                               fold_case=spelled.fold_case) for spelling in spelled.all)
    assert matched is caseless
    # What a workspace on such a file system gets:
    assert rule.matches("read_file", ".ENV", command=False, fold_case=True)
    assert not rule.matches("read_file", ".ENV", command=False)
    assert protection(".GIT/Config", fold_case=True) == (
        "writes .GIT/Config, which controls what git runs")
    assert protection(".GIT/Config") is None


@pytest.mark.parametrize(("path", "why"), [
    (".git/config", "writes .git/config, which controls what git runs"),
    (".git/hooks/pre-commit", "which controls what git runs"),
    ("vendor/lib/.git/config", "which controls what git runs"),
    (".vscode/settings.json", "which configures the editor"),
    (".vscode/tasks.json", "which configures the editor"),
    ("proj.code-workspace", "which configures the editor"),
    (".idea/workspace.xml", "which configures the editor"),
    (".zed/settings.json", "which configures the editor"),
    (".nvim.lua", "which configures the editor"),
    (".exrc", "which configures the editor"),
    (".harness9/settings.json", "which configures harness9 itself"),
    (".envrc", "which direnv runs"),
    (".husky/pre-commit", "git hooks"),
    (".pre-commit-config.yaml", "git hooks"),
])
def test_writes_to_what_controls_execution_are_always_asked(
    tmp_path: Path, path: str, why: str
) -> None:
    raw = {"mode": "auto-edit", "allow": ["write_file(**)", "edit_file(**)"]}
    for tool in ("write_file", "edit_file"):
        decision = decide(raw, tool, tmp_path, path=path, content="x", source_text="a",
                          target_text="b")
        assert (decision.action, decision.by) == (Q, DecidedBy.MODE), (tool, path)
        assert decision.reason is not None and why in decision.reason
    memory = SessionApprovals()
    memory.remember("write_file", ToolKind.EDIT, {"path": "a.txt"})
    assert decide({"mode": "auto-edit"}, "write_file", tmp_path, memory, path=path,
                  content="x").action is Q
    assert decide({"mode": "yolo"}, "write_file", tmp_path, path=path, content="x").action is A
    assert decide({"mode": "read-only", "allow": ["write_file(**)"]}, "write_file", tmp_path,
                  path=path, content="x").action is D
    assert decide(raw, "write_file", tmp_path, path="src/app.py", content="x").action is A


def test_a_link_into_git_is_a_write_to_git(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "notes.txt").symlink_to(".git/config")
    (tmp_path / "meta").symlink_to(".git")
    raw = {"mode": "auto-edit"}
    for path in ("notes.txt", "meta/config", "meta/hooks/post-checkout"):
        decision = decide(raw, "write_file", tmp_path, path=path, content="x")
        assert decision.action is Q, path
        assert decision.reason is not None and ".git/" in decision.reason
    command = decide({"allow": ["bash(echo*)"]}, "bash", tmp_path,
                     command="echo '[core] fsmonitor = touch PWNED' >> notes.txt")
    assert command.action is Q and command.reason is not None
    assert "writes .git/config, which controls what git runs" in command.reason


@pytest.mark.parametrize("command", [
    "rm -rf x", "\\rm -rf x", "command rm -rf x", "/bin/rm -rf x", "env rm -rf x",
    "'rm' -rf x", "r''m -rf x", '"r"m -rf x', "nohup rm -rf x", "time rm -rf x",
    "exec rm -rf x", "builtin rm -rf x", "env -i FOO=1 rm -rf x", "FOO=1 rm -rf x",
    "sudo rm -rf x", "sudo -u root /usr/bin/rm -rf x", "nice -n 5 rm -rf x",
    "timeout 5 rm -rf x", "command -p rm -rf x", "ls && \\rm -rf x", "echo $(r\\m -rf x)",
    "xargs rm -rf < list", "env -S 'rm -rf x'", "for f in *; do rm -rf $f; done",
    "$'rm' -rf x", "$'\\x72m' -rf x",
])
def test_a_deny_rule_sees_through_spellings_of_the_command(command: str) -> None:
    raw = {"mode": "yolo", "allow": ["bash"], "deny": ["bash(rm *)"]}
    decision = decide(raw, "bash", command=command)
    assert (decision.action, decision.rule) == (D, "bash(rm *)"), command


@pytest.mark.parametrize(("command", "action"), [
    ("'git' status", A), ("g\\it status --short", A), ("command git status", A),
    ("nohup git status", A), ("env git status", A), ("time git status", A),
    ("sudo git status", Q), ("LD_PRELOAD=./x.so git status", Q), ("env -i git status", Q),
    ("./git status", Q), ("/tmp/git status", Q), ("env GIT_DIR=x git status", Q),
    ("git 'status; rm -rf x'", Q), ("$GIT status", Q), ("exec -a x git status", Q),
])
def test_an_allow_rule_sees_the_command_as_bash_runs_it(command: str, action: Action) -> None:
    assert decide(GIT_STATUS, "bash", command=command).action is action, command
