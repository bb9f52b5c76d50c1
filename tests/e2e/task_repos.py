"""What the worktree tasks' tests share: real git repositories in temp folders, a daemon on
one, and a task run with the fake model's steps."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

QUIET = {"HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-4o",
         "HARNESS9_LANGUAGE_SERVERS": "{}"}


def git(root: Path, *args: str) -> str:
    """`git args` in `root` (file-protocol submodules allowed); its output."""
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                           "-c", "protocol.file.allow=always", *args],
                          cwd=root, capture_output=True, text=True, check=True, timeout=30)
    return done.stdout


def repository(root: Path) -> Path:
    """A repository with one commit: `a.txt` (five lines), `.gitignore` ignoring `.env`."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    (root / ".gitignore").write_text(".env\nbuild/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


async def daemon_on(start: StartDaemon, fake: FakeLLM, root: Path, **env: str) -> Daemon:
    """A daemon on workspace `root` talking to the fake model."""
    return await start(root, env={**fake.env(), **QUIET, **env})


def edit(path: str, source: str, target: str, call_id: str) -> Call:
    """An `edit_file` call."""
    return Call("edit_file", {"path": path, "source_text": source, "target_text": target},
                id=call_id)


async def a_task(daemon: Daemon, fake: FakeLLM, *steps: Any) -> dict[str, Any]:
    """Run one task with the fake model's `steps`; the `agent/run` result."""
    fake.script([*steps, Reply("done")])
    return await daemon.run(prompt="work in the background", isolation="worktree")


def started(daemon: Daemon, run_id: str) -> dict[str, Any]:
    """The `run_started` progress of a run."""
    return next(p for p in daemon.of_run(run_id) if p["kind"] == "run_started")
