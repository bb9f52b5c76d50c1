"""Language servers of its own: for a client that does not announce the editor's diagnostics
or language features, the daemon runs the configured servers itself (real `ruff server` and
`basedpyright-langserver` here), and serves the problems after each edit and the language
tools from them, with `diagnosticsSource: "harness9"`."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon
from tests.e2e.test_editor_problems import edit, tool_texts
from tests.fakellm import Call, FakeLLM, Reply
from tests.support.processes import alive

pytestmark = pytest.mark.timeout(90)

BIN = Path(sys.executable).parent
RUFF = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
PYRIGHT = (shutil.which("basedpyright-langserver", path=str(BIN))
           or shutil.which("basedpyright-langserver"))
FAKE_SCRIPT = Path(__file__).parents[1] / "support" / "fake_langserver.py"


def fake_server(folder: Path) -> list[str]:
    """The fake server as a program in the `bin` of a virtual environment under `folder` (the
    test's temporary folder, under /tmp: where a clean checkout's servers are, and where
    bubblewrap shows commands a private folder instead)."""
    venv = folder / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib").mkdir()
    shutil.copy(FAKE_SCRIPT, venv / "lib" / FAKE_SCRIPT.name)
    program = venv / "bin" / "fakels"
    program.write_text(
        f"#!{os.path.realpath(sys.executable)}\nimport os, runpy\n"
        f"here = os.path.dirname(os.path.realpath(__file__))\n"
        f"runpy.run_path(os.path.join(here, '..', 'lib', {FAKE_SCRIPT.name!r}), "
        f"run_name='__main__')\n")
    program.chmod(0o755)
    return [str(program)]


def ruff_server() -> dict[str, Any]:
    if RUFF is None:
        pytest.fail("ruff is one of the test tools (pip install -e .[test])")
    return {"ruff": {"command": [RUFF, "server"], "languages": ["python"]}}


def pyright_server() -> dict[str, Any]:
    if PYRIGHT is None:
        pytest.fail("basedpyright is one of the test tools (pip install -e .[test])")
    return {"basedpyright": {"command": [PYRIGHT, "--stdio"], "languages": ["python"]}}


async def daemon_with(start: StartDaemon, fake: FakeLLM, root: Path,
                      servers: dict[str, Any], **settings: Any) -> Daemon:
    env = {**fake.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    return await start(root, env=env, init={"languageServers": servers, **settings})


def completed(daemon: Daemon, run_id: str, tool: str) -> list[dict[str, Any]]:
    return [p for p in daemon.of_run(run_id)
            if p["kind"] == "tool_completed" and p["tool"] == tool]


async def test_a_ruff_error_an_edit_brings_is_a_new_problem_from_harness9(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    app = workspace / "app.py"
    app.write_text("import os\n\nvalue = 1\nprint(value)\n")  # F401 before: not new
    fake_llm.script([
        Reply("", [edit("app.py", "print(value)", "print(undefined_name)")]),
        Reply("", [edit("app.py", "print(undefined_name)", "print(value)")]),
        Reply("fixed"),
    ])
    daemon = await daemon_with(start, fake_llm, workspace, ruff_server())
    result = await daemon.run(prompt="break it, then fix it")
    assert result["text"] == "fixed"
    assert tool_texts(fake_llm, 1)[-1].endswith(
        "New problems in app.py after this edit, as the language servers report them:\n"
        "<editor-diagnostics>\n"
        "app.py:4:7: error: Undefined name `undefined_name` (Ruff F821)\n"
        "</editor-diagnostics>")
    assert tool_texts(fake_llm, 2)[-1].endswith("No new problems in app.py.")
    broke, fixed = completed(daemon, result["runId"], "edit_file")
    assert broke["diagnostics"] == [{
        "path": "app.py", "line": 4, "column": 7, "severity": "error",
        "message": "Undefined name `undefined_name`", "source": "Ruff", "code": "F821"}]
    assert broke["diagnosticsSource"] == "harness9"
    assert fixed["diagnostics"] == [] and fixed["diagnosticsSource"] == "harness9"
    offered = {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]}
    assert {"diagnostics", "find_definition", "rename_symbol"} <= offered
    listed = await daemon.request("agent/tools", {})
    assert {"diagnostics", "hover"} <= {t["name"] for t in listed["tools"]}


async def test_basedpyright_answers_the_language_tools(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    (workspace / "greeting.py").write_text(
        'def greet(name: str) -> str:\n    """Say hello."""\n    return "hi " + name\n')
    (workspace / "main.py").write_text("from greeting import greet\n\nprint(greet('x'))\n")
    where = {"path": "main.py", "line": 3, "symbol": "greet"}
    fake_llm.script([
        Reply("", [Call("find_definition", where)]),
        Reply("", [Call("hover", where)]),
        Reply("", [Call("find_references", where)]),
        Reply("", [Call("rename_symbol", {**where, "newName": "welcome"})]),
        Reply("done"),
    ])
    daemon = await daemon_with(start, fake_llm, workspace, pyright_server())
    result = await daemon.run(prompt="look around, then rename")
    assert result["text"] == "done"
    assert tool_texts(fake_llm, 1)[-1] == (
        "1 definitions:\ngreeting.py:1:5: def greet(name: str) -> str:")
    assert "Say hello." in tool_texts(fake_llm, 2)[-1]
    references = tool_texts(fake_llm, 3)[-1].splitlines()
    assert references[0] == "3 references:"
    assert "main.py:3:7: print(greet('x'))" in references
    renamed = tool_texts(fake_llm, 4)[-1]
    # The server was told of greeting.py's change before main.py was checked.
    assert renamed.startswith("Renamed to welcome in 2 files"), renamed
    assert "unknown import symbol" not in renamed, renamed
    assert (workspace / "main.py").read_text() == (
        "from greeting import welcome\n\nprint(welcome('x'))\n")
    assert (workspace / "greeting.py").read_text().startswith("def welcome(name: str)")


async def test_a_server_outlives_a_pause_between_the_calls_it_answers(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    # A server that watched the client's process id (an LSP client may give it) ended within
    # seconds: in the sandbox's process namespace the daemon is not there to be seen.
    (workspace / "greeting.py").write_text('def greet() -> str:\n    """Say hello."""\n')
    where = {"path": "greeting.py", "line": 1, "symbol": "greet"}
    fake_llm.script([
        Reply("", [Call("hover", where)]),
        Reply("", [Call("bash", {"command": "sleep 5"})]),
        Reply("", [Call("hover", where)]),
        Reply("done"),
    ])
    daemon = await daemon_with(start, fake_llm, workspace, pyright_server())
    assert (await daemon.run(prompt="hover, wait, hover"))["text"] == "done"
    assert "Say hello." in tool_texts(fake_llm, 1)[-1]
    assert "Say hello." in tool_texts(fake_llm, 3)[-1], tool_texts(fake_llm, 3)[-1]
    # The same server answered both: it is older than the pause (a restart would hide a stop).
    ages = [_age(pid) for pid in marked("basedpyright") if _cwd(pid) == workspace]
    assert ages and min(ages) > 5.0, ages


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


def _age(pid: int) -> float:
    """Seconds since process `pid` started."""
    started = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return uptime - started / os.sysconf("SC_CLK_TCK")


# Without bubblewrap on the daemon's PATH the sandbox is Landlock's.
@pytest.mark.parametrize("path", [os.environ.get("PATH", os.defpath), "/nonexistent"],
                         ids=["bwrap", "landlock"])
async def test_a_server_reads_the_workspace_but_cannot_write_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, path: str, tmp_path: Path
) -> None:
    (workspace / "app.py").write_text("value = 1\n")
    fake_llm.script([
        Reply("", [Call("hover", {"path": "app.py", "line": 1, "symbol": "value"})]),
        Reply("done"),
    ])
    servers = {"fake": {"command": fake_server(tmp_path), "languages": ["python"]}}
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test",
           "PATH": path}
    daemon = await start(workspace, env=env, init={"languageServers": servers})
    await daemon.run(prompt="hover")
    answer = tool_texts(fake_llm, 1)[-1]
    # bubblewrap: "Read-only file system"; Landlock: "Permission denied".
    assert answer.startswith("write: denied ("), answer
    assert not (workspace / "written-by-server.txt").exists()


def marked(marker: str) -> list[int]:
    """The processes whose command line holds `marker` (the server, and bubblewrap's)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                line = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in line and alive(int(name)):
                found.append(int(name))
    return found


async def gone(marker: str, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while marked(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return not marked(marker)


@pytest.mark.parametrize("end", ["shutdown", "killed"])
async def test_the_servers_die_with_the_daemon(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path, end: str, tmp_path: Path
) -> None:
    (workspace / "app.py").write_text("value = 1\n")
    fake_llm.script([
        Reply("", [Call("hover", {"path": "app.py", "line": 1, "symbol": "value"})]),
        Reply("done"),
    ])
    marker = f"marker-{uuid.uuid4().hex}"
    servers = {"fake": {"command": [*fake_server(tmp_path), marker], "languages": ["python"]}}
    daemon = await daemon_with(start, fake_llm, workspace, servers)
    await daemon.run(prompt="hover")
    assert marked(marker), "the server runs once a run used it"
    if end == "killed":
        daemon.client._server.kill()  # the daemon goes with no chance to stop anything
    else:
        await daemon.client.shutdown_session()
    assert await gone(marker)
