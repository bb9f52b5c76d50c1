"""The editor's language servers as tools (`harness9/languageQuery`): definition, references,
workspace symbols, hover and rename, offered for the kinds a client announces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.editor import Editor
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)
ALL = ["definition", "references", "symbols", "hover", "rename"]
LIB = "def helper():\n    return 1\n"
USE = "from lib import helper\nx = '😀'; y = helper()\n"


def spot(path: Path, line: int, character: int, length: int = 6) -> dict[str, Any]:
    return {"uri": path.as_uri(), "range": {
        "start": {"line": line, "character": character},
        "end": {"line": line, "character": character + length}}}


class Server:
    """The client's language server, faked: it knows `helper`, defined in lib.py and used in
    use.py (and in a library outside the workspace)."""

    def __init__(self, daemon: Daemon, root: Path, outside: Path) -> None:
        self.asked: list[dict[str, Any]] = []
        self.rename_reaches_outside = False
        self.rename_also: dict[str, list[dict[str, Any]]] = {}  # more files the rename edits
        lib, use = root / "lib.py", root / "use.py"

        @daemon.client.feature("harness9/languageQuery")
        def _query(ls: Any, params: Any) -> Any:
            params = dict(params)
            self.asked.append(params)
            kind = params["kind"]
            if kind == "definition":
                return {"locations": [spot(lib, 0, 4)]}
            if kind == "references":
                return {"locations": [spot(lib, 0, 4), spot(use, 0, 16), spot(use, 1, 14),
                                      spot(outside, 3, 0)]}
            if kind == "symbols":
                return {"symbols": [{"name": "helper", "kind": 12,
                                     "location": spot(lib, 0, 4)}]}
            if kind == "hover":
                return {"hover": "```python\ndef helper() -> int\n```"}
            new = params["newName"]
            changes = {lib.as_uri(): [{**spot(lib, 0, 4), "newText": new}],
                       use.as_uri(): [{**spot(use, 0, 16), "newText": new},
                                      {**spot(use, 1, 14), "newText": new}]}
            if self.rename_reaches_outside:
                changes[outside.as_uri()] = [{**spot(outside, 3, 0), "newText": new}]
            changes.update({uri: [{**edit, "newText": new} for edit in edits]
                            for uri, edits in self.rename_also.items()})
            return {"edit": {"changes": changes}}


async def setup(start: StartDaemon, fake: FakeLLM, root: Path, tmp_path: Path,
                kinds: list[str], mode: str = "yolo") -> tuple[Daemon, Server, Editor]:
    (root / "lib.py").write_text(LIB)
    (root / "use.py").write_text(USE)
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test",
           "HARNESS9_APPROVALS": mode,
           "HARNESS9_LANGUAGE_SERVERS": "{}"}  # the editor's servers only
    daemon = await start(root, env=env, language=kinds, approval_requests=mode != "yolo")
    editor = Editor(daemon)
    editor.open(root / "use.py", USE)
    return daemon, Server(daemon, root, tmp_path / "site" / "other.py"), editor


def rename_to(new_name: str) -> Reply:
    """The model's call renaming `helper` (line 1 of lib.py) to `new_name`."""
    return Reply("", [Call("rename_symbol", {"path": "lib.py", "line": 1, "symbol": "helper",
                                             "newName": new_name})])


def tool_texts(fake: FakeLLM, index: int) -> list[str]:
    return [str(m["content"]) for m in fake.requests[index].messages if m["role"] == "tool"]


async def test_queries_speak_paths_lines_and_names(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    at = {"path": "use.py", "line": 2, "symbol": "helper"}
    fake_llm.script([
        Reply("", [Call("find_definition", at), Call("find_references", at),
                   Call("workspace_symbols", {"query": "help"}), Call("hover", at)]),
        Reply("understood"),
    ])
    daemon, server, _ = await setup(start, fake_llm, workspace, tmp_path, ALL)
    await daemon.run(prompt="where is helper?")
    definition, references, symbols, hover = tool_texts(fake_llm, 1)
    assert definition == "1 definitions:\nlib.py:1:5: def helper():"
    outside = tmp_path / "site" / "other.py"
    assert references.splitlines() == [
        "4 references:", "lib.py:1:5: def helper():", "use.py:1:17: from lib import helper",
        "use.py:2:14: x = '😀'; y = helper()", f"{outside}:4:1"]
    assert symbols == "1 symbols:\nhelper (function) lib.py:1:5: def helper():"
    assert hover == "```python\ndef helper() -> int\n```"
    # The position went out in UTF-16 code units: the emoji counts two.
    asked = next(a for a in server.asked if a["kind"] == "definition")
    assert asked["uri"] == (workspace / "use.py").as_uri()
    assert asked["position"] == {"line": 1, "character": 14}


async def test_a_symbol_off_its_line_is_found_near_or_named(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([
        Reply("", [Call("find_definition", {"path": "use.py", "line": 1, "symbol": "y"}),
                   Call("find_definition", {"path": "lib.py", "line": 2, "symbol": "nowhere"})]),
        Reply("ok"),
    ])
    daemon, server, _ = await setup(start, fake_llm, workspace, tmp_path, ALL)
    await daemon.run(prompt="look")
    near, missing = tool_texts(fake_llm, 1)
    assert near.startswith("1 definitions")
    assert server.asked[0]["position"] == {"line": 1, "character": 10}
    assert "'nowhere' is not on line 2 of lib.py" in missing and "return 1" in missing


async def test_rename_changes_every_file_through_the_editor(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([
        rename_to("assist"),
        Reply("renamed"),
    ])
    daemon, _, editor = await setup(start, fake_llm, workspace, tmp_path, ALL)
    ran = await daemon.run(prompt="rename helper")
    assert tool_texts(fake_llm, 1)[0] == "Renamed to assist in 2 files: lib.py, use.py"
    done = [p for p in daemon.of_run(ran["runId"]) if p["kind"] == "tool_completed"]
    assert done[0]["changedFiles"] == [{"path": "lib.py", "status": "modified"},
                                       {"path": "use.py", "status": "modified"}]
    assert (workspace / "lib.py").read_text() == "def assist():\n    return 1\n"
    expected = "from lib import assist\nx = '😀'; y = assist()\n"
    assert editor.text(workspace / "use.py") == expected  # the open buffer, undoable there
    assert (workspace / "use.py").read_text() == expected
    assert [e["label"] for e in editor.edits] == ["harness9: rename_symbol use.py"]


async def test_a_rename_reaching_outside_changes_nothing(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([
        rename_to("assist"),
        Reply("refused"),
    ])
    daemon, server, editor = await setup(start, fake_llm, workspace, tmp_path, ALL)
    server.rename_reaches_outside = True
    await daemon.run(prompt="rename helper")
    assert "outside the workspace; nothing was renamed" in tool_texts(fake_llm, 1)[0]
    assert (workspace / "lib.py").read_text() == LIB
    assert editor.text(workspace / "use.py") == USE and editor.edits == []


async def test_only_the_announced_kinds_are_offered(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([Reply("ok"), Reply("ok")])
    daemon, _, _ = await setup(start, fake_llm, workspace, tmp_path, ["definition", "teleport"])
    await daemon.run(prompt="hi")
    offered = {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]}
    assert "find_definition" in offered
    assert not offered & {"find_references", "workspace_symbols", "hover", "rename_symbol"}
    listed = {t["name"] for t in (await daemon.request("agent/tools", {}))["tools"]}
    assert "find_definition" in listed and "rename_symbol" not in listed
    plain, _, _ = await setup(start, fake_llm, workspace, tmp_path, [])
    await plain.run(prompt="hi")
    assert "find_definition" not in {t["function"]["name"]
                                     for t in fake_llm.requests[1].body["tools"]}


class Asked:
    """The user, asked through `agent/requestApproval`: records each question, answers
    `decision`."""

    def __init__(self, daemon: Daemon, decision: str) -> None:
        self.asked: list[dict[str, Any]] = []

        @daemon.client.feature("agent/requestApproval")
        def _ask(ls: Any, params: Any) -> dict[str, Any]:
            self.asked.append(dict(params))
            return {"decision": decision}


CONFIG = "[core]\n\tbare = false\n"
SETTINGS = '{"helper": "python"}\n'


async def test_a_rename_that_writes_protected_files_is_asked_about_listing_every_file(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([
        rename_to("fsmonitor"),
        Reply("refused"),
    ])
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text(CONFIG)
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(SETTINGS)
    daemon, server, editor = await setup(start, fake_llm, workspace, tmp_path, ALL, "auto-edit")
    server.rename_also = {
        (workspace / ".git" / "config").as_uri(): [spot(workspace / ".git" / "config", 1, 1, 4)],
        (workspace / ".vscode" / "settings.json").as_uri(): [
            spot(workspace / ".vscode" / "settings.json", 0, 2, 6)],
    }
    user = Asked(daemon, "reject")
    ran = await daemon.run(prompt="rename helper")
    [question] = user.asked  # auto-edit runs edits unasked, but not these
    assert question["files"] == ["lib.py", "use.py", ".git/config", ".vscode/settings.json"]
    assert question["reason"] == "writes .git/config, which controls what git runs"
    assert question["title"] == "rename_symbol: lib.py, use.py, .git/config, .vscode/settings.json"
    assert "+++ b/.git/config" in question["diff"] and "+\tfsmonitor = false" in question["diff"]
    assert "+++ b/.vscode/settings.json" in question["diff"]
    assert (workspace / ".git" / "config").read_text() == CONFIG
    assert (workspace / ".vscode" / "settings.json").read_text() == SETTINGS
    assert (workspace / "lib.py").read_text() == LIB and editor.edits == []
    failed = [p for p in daemon.of_run(ran["runId"]) if p["kind"] == "tool_failed"]
    assert [p["reason"] for p in failed] == ["rejected"]


async def test_an_asked_rename_lists_its_files_and_writes_what_was_shown(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.script([
        rename_to("assist"),
        Reply("renamed"),
    ])
    daemon, server, editor = await setup(start, fake_llm, workspace, tmp_path, ALL, "ask")
    user = Asked(daemon, "allow_once")
    await daemon.run(prompt="rename helper")
    [question] = user.asked
    assert (question["files"], question["title"]) == (
        ["lib.py", "use.py"], "rename_symbol: lib.py, use.py")
    assert "reason" not in question and question["diff"].count("+++ b/") == 2
    assert [a["kind"] for a in server.asked].count("rename") == 1  # worked out once
    assert tool_texts(fake_llm, 1)[0] == "Renamed to assist in 2 files: lib.py, use.py"
    assert (workspace / "lib.py").read_text() == "def assist():\n    return 1\n"
    assert editor.text(workspace / "use.py") == "from lib import assist\nx = '😀'; y = assist()\n"
