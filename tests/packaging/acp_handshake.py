"""An ACP client as an editor is one, for a harness9 that a runner starts from a built package.

    acp_handshake.py --label uvx --expect-version 0.1.0 --workdir DIR -- uvx --from W harness9

The words after `--` start the `harness9` command (`uvx --from WHEEL harness9`, `pipx run
--spec WHEEL harness9`). Three checks, one line each:

1. `harness9 --version` prints `harness9 VERSION` (the first run installs the package, so it
   has the longest time limit);
2. `harness9 acp` with no model configured and no API key: `initialize`, `session/new`, then a
   `session/prompt` that fails cleanly (JSON-RPC error -32803, `data.kind` `config`);
3. `harness9 acp` with the replay provider (a one-turn script, offline): the prompt ends with
   `stopReason: end_turn` and the script's text arrives as `agent_message_chunk`s.

Each ACP run ends as a client ends it: stdin closed, and the process must exit 0 soon after.
Newline-delimited JSON-RPC on the process's stdin/stdout; nothing else may appear on stdout.
The exit code is 0 when every check passed, else 1 after the failing check's reason.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = 1
REPLAY_TEXT = "The package works: this answer came from the replay script."
# Variables of the caller's environment that would reach a real service or change what the
# agent does: the checks decide the model and the state folder themselves.
DROPPED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "HARNESS9_")

# Time limits, in seconds. The first `--version` installs the package and its dependencies from
# PyPI with a cold cache; after it the runners start from their cached environment.
INSTALL_TIMEOUT = 600.0
REQUEST_TIMEOUT = 60.0
EXIT_TIMEOUT = 10.0


class CheckFailed(Exception):
    """A check did not hold; the message says why."""


class AcpProcess:
    """`harness9 acp` started by a runner, spoken to as an ACP client speaks to it."""

    def __init__(self, command: Sequence[str], env: dict[str, str], stderr: IO[bytes]) -> None:
        # A process group of its own: the runner starts harness9 as its child, and a stop after
        # a failed check must reach both.
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env,
            start_new_session=True,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.updates: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Queue each stdout line as a message; None at end of file. A line that is not a JSON
        object is queued as a `not-json` marker, since stdout must carry the protocol only."""
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                message = {"not-json": raw.decode(errors="replace").rstrip()}
            self.messages.put(message)
        self.messages.put(None)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its response (the whole response object)."""
        self.next_id += 1
        wanted = self.next_id
        self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            message = self._next(deadline, method)
            if "method" in message:
                self._handle(message)
            elif message.get("id") == wanted:
                return message

    def _next(self, deadline: float, method: str) -> dict[str, Any]:
        """The next message from the agent, or CheckFailed when none comes in time."""
        try:
            message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise CheckFailed(f"{method}: no answer within {REQUEST_TIMEOUT:.0f} s") from None
        if message is None:
            raise CheckFailed(f"{method}: the agent closed stdout (exit {self.process.poll()})")
        if "not-json" in message:
            raise CheckFailed(f"stdout carried a line that is not JSON: {message['not-json']!r}")
        return message

    def _handle(self, message: dict[str, Any]) -> None:
        """A notification or a request from the agent: updates are kept, requests refused (a
        text-only prompt asks the client nothing, so any request here is unexpected)."""
        if message["method"] == "session/update":
            self.updates.append(message["params"]["update"])
        elif "id" in message:
            self._send({"jsonrpc": "2.0", "id": message["id"],
                        "error": {"code": -32601, "message": f"{message['method']}: not offered"}})

    def _send(self, message: dict[str, Any]) -> None:
        """Write one line of JSON-RPC."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def end(self) -> int:
        """Close stdin, as a client does when it is done, and wait for the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"still running {EXIT_TIMEOUT:.0f} s after stdin closed") from None

    def kill(self) -> None:
        """Stop what is left of the runner's process group (after a failed check)."""
        kill_group(self.process)


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process group `process` leads (started with `start_new_session`) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=EXIT_TIMEOUT)


def result_of(response: dict[str, Any], method: str) -> dict[str, Any]:
    """A response's result, or CheckFailed with the error it carried instead."""
    if "error" in response:
        raise CheckFailed(f"{method} answered an error: {json.dumps(response['error'])}")
    result: dict[str, Any] = response["result"]
    return result


def open_session(agent: AcpProcess, version: str, cwd: Path) -> str:
    """`initialize` and `session/new` as a client sends them; the new session's id."""
    hello = result_of(agent.request("initialize", {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}},
        "clientInfo": {"name": "harness9-packaging-check", "version": "1"},
    }), "initialize")
    info = hello.get("agentInfo") or {}
    expect(hello.get("protocolVersion") == PROTOCOL_VERSION,
           f"initialize: protocolVersion {hello.get('protocolVersion')!r}")
    expect(info.get("name") == "harness9", f"initialize: agentInfo.name {info.get('name')!r}")
    expect(info.get("version") == version,
           f"initialize: agentInfo.version {info.get('version')!r}, not {version!r}")
    expect(bool(hello.get("authMethods")), "initialize: no authMethods")
    created = result_of(agent.request("session/new", {"cwd": str(cwd), "mcpServers": []}),
                        "session/new")
    session_id = created.get("sessionId")
    expect(isinstance(session_id, str) and bool(session_id), "session/new: no sessionId")
    return str(session_id)


def prompt(agent: AcpProcess, session_id: str) -> dict[str, Any]:
    """One text prompt on the session; the whole response."""
    return agent.request("session/prompt", {
        "sessionId": session_id, "prompt": [{"type": "text", "text": "Say that it works."}]})


def expect(condition: bool, reason: str) -> None:
    """CheckFailed(reason) unless the condition holds."""
    if not condition:
        raise CheckFailed(reason)


def run_session(command: Sequence[str], env: dict[str, str], workdir: Path, version: str,
                talk: Callable[[AcpProcess, str], str]) -> str:
    """Start `harness9 acp`, open a session, let `talk` prompt it, then close stdin and require
    exit code 0. What `talk` found is returned for the check's line."""
    cwd = Path(env["HARNESS9_STATE_DIR"]).parent / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    with (workdir / "agent.log").open("ab") as stderr:
        agent = AcpProcess([*command, "acp"], env, stderr)
        try:
            found = talk(agent, open_session(agent, version, cwd))
            code = agent.end()
        finally:
            agent.kill()
    expect(code == 0, f"exit code {code} after stdin closed")
    return found


def unconfigured(agent: AcpProcess, session_id: str) -> str:
    """No model and no key: the prompt must fail as a configuration error, not crash."""
    response = prompt(agent, session_id)
    error = response.get("error")
    if error is None:
        raise CheckFailed(f"session/prompt without a key answered {response.get('result')}")
    kind = (error.get("data") or {}).get("kind")
    expect(error.get("code") == -32803 and kind == "config",
           f"session/prompt without a key: {json.dumps(error)}")
    return f"error {error['code']} ({kind}): {error.get('message', '')[:70]}…"


def replayed(agent: AcpProcess, session_id: str) -> str:
    """The replay provider: the prompt ends its turn with the script's text."""
    result = result_of(prompt(agent, session_id), "session/prompt")
    expect(result.get("stopReason") == "end_turn", f"session/prompt: {json.dumps(result)}")
    text = "".join(u["content"].get("text", "") for u in agent.updates
                   if u.get("sessionUpdate") == "agent_message_chunk")
    expect(REPLAY_TEXT in text, f"the agent's text was {text!r}")
    return f"stopReason end_turn, {len(text)} characters of the script's text"


def environment(workdir: Path, name: str, **extra: str) -> dict[str, str]:
    """The caller's environment without keys or harness9 settings, with a state folder of its
    own and `extra` added."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED_PREFIXES)}
    env["HARNESS9_STATE_DIR"] = str(workdir / name / "state")
    env["HARNESS9_LOG_LEVEL"] = "WARNING"
    return env | extra


def check_version(command: Sequence[str], workdir: Path, version: str) -> str:
    """`harness9 --version` through the runner (which installs the package on its first run)."""
    with (workdir / "agent.log").open("ab") as stderr:
        process = subprocess.Popen([*command, "--version"], stdout=subprocess.PIPE,
                                   stderr=stderr, stdin=subprocess.DEVNULL,
                                   env=environment(workdir, "version"), start_new_session=True)
        try:
            out, _ = process.communicate(timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"no exit within {INSTALL_TIMEOUT:.0f} s") from None
        finally:
            kill_group(process)  # an installer's child left behind, on a timeout
    printed = out.decode(errors="replace").strip()
    expect(process.returncode == 0, f"exit code {process.returncode}")
    expect(printed == f"harness9 {version}", f"printed {printed!r}, not 'harness9 {version}'")
    return printed


def checks(command: Sequence[str], workdir: Path, version: str
           ) -> list[tuple[str, Callable[[], str]]]:
    """The checks, in order: a name for the line, and what runs it."""
    script = workdir / "replay.json"
    script.write_text(json.dumps({"turns": [{"text": REPLAY_TEXT}]}))
    replay = environment(workdir, "replay", HARNESS9_PROVIDER="replay",
                         HARNESS9_REPLAY=str(script))
    return [
        ("harness9 --version", lambda: check_version(command, workdir, version)),
        ("acp, no API key: initialize, session/new, session/prompt",
         lambda: run_session(command, environment(workdir, "nokey"), workdir, version,
                             unconfigured)),
        ("acp, replay provider: initialize, session/new, session/prompt",
         lambda: run_session(command, replay, workdir, version, replayed)),
    ]


def print_tail(log: Path, lines: int = 30) -> None:
    """The end of what the runner and the agent wrote on stderr, to say why a check failed."""
    written = log.read_text(errors="replace").splitlines() if log.exists() else []
    if written:
        print(f"    the end of {log}:")
        for line in written[-lines:]:
            print(f"    {line}")


def main(argv: Sequence[str]) -> int:
    """Run the checks; one line each. 0 when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="the runner's name, for the lines")
    parser.add_argument("--expect-version", required=True, help="the package's version")
    parser.add_argument("--workdir", required=True, type=Path, help="a folder for state, logs")
    parser.add_argument("command", nargs="+", help="the command that starts harness9")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    for name, run in checks(args.command, args.workdir, args.expect_version):
        started = time.monotonic()
        try:
            found = run()
        except CheckFailed as failure:
            print(f"{args.label}: {name}: FAILED: {failure}")
            print_tail(args.workdir / "agent.log")
            return 1
        print(f"{args.label}: {name}: ok ({time.monotonic() - started:.1f} s): {found}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
