"""Project instructions: the AGENTS.md files that tell an agent how a project works.

A new conversation's system prompt carries the user's own file
(`$XDG_CONFIG_HOME/harness9/AGENTS.md`) and the workspace root's `AGENTS.md`, each introduced
with where it came from and capped at 32 KiB (with a note when cut). An `AGENTS.md` in a
subfolder is added to the observation of the first call of a session that reads or edits a
file under it (`NestedInstructions`, a registry middleware), once per session; the closest
file to the touched one is the one added, and the model is told that it wins. Workspace files
are read beneath the workspace (a link leading out is refused), and every file only when it is
a regular file (a FIFO never stalls the daemon).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness9.schema import ToolCall, ToolError
from harness9.service.state import config_dir
from harness9.tools.approvals.policy import FILE_KINDS
from harness9.tools.contract import BaseTool, ToolOutput, as_output
from harness9.tools.registry import Proceed
from harness9.workspace.regular_files import read_regular, read_regular_beneath
from harness9.workspace.safe_path import safe_path

FILE_NAME = "AGENTS.md"
MAX_BYTES = 32 * 1024


def user_file(env: Mapping[str, str] | None = None) -> Path:
    """Where the user's own instructions live: `$XDG_CONFIG_HOME/harness9/AGENTS.md`, else
    `~/.config/harness9/AGENTS.md`."""
    return config_dir(env) / FILE_NAME


def project_instructions(root: str, env: Mapping[str, str] | None = None) -> str:
    """The instructions part of a new conversation's system prompt ("" when there are none).
    Blocking: it reads files."""
    parts: list[str] = []
    home = user_file(env)
    user = _read(lambda: read_regular(home, MAX_BYTES + 1))
    if user is not None:
        parts.append(f"Instructions from the user's own file {home} (for every project):\n{user}")
    project = _read(lambda: read_regular_beneath(root, FILE_NAME, MAX_BYTES + 1))
    if project is not None:
        parts.append(
            f"Instructions from the project's {FILE_NAME} (at the workspace root; where they "
            f"differ from the user's, the project's win):\n{project}"
        )
    return "\n\n".join(parts)


def with_instructions(prompt: str, instructions: str) -> str:
    """The system prompt followed by the instructions."""
    return f"{prompt}\n\n{instructions}" if instructions else prompt


class NestedInstructions:
    """A registry middleware: after a file tool ran on a path under a subfolder with its own
    AGENTS.md, that file's text follows the tool's output, the first time in the session.
    `seen` (the session's) holds the workspace-relative paths already added."""

    def __init__(self, root: str, seen: set[str]) -> None:
        self._root = root
        self._seen = seen

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput:
        """Run the call; add the nested instructions it is the first to reach."""
        output = await proceed()
        path = arguments.get("path")
        if tool.definition().kind not in FILE_KINDS or not isinstance(path, str):
            return output
        # Finding the closest AGENTS.md is a few stat calls, cheaper than a thread hop on every
        # file call; reading one, once a session, goes to a thread.
        found = self._closest(path)
        if found is None or found in self._seen:
            return output
        self._seen.add(found)
        extra = await asyncio.to_thread(self._instructions_in, found)
        if extra is None:
            return output
        out = as_output(output)
        return replace(out, text=f"{out.text}\n\n{extra}")  # the rest of the report stays

    def _instructions_in(self, found: str) -> str | None:
        """The text added for the AGENTS.md at `found` (workspace-relative); None if unread."""
        text = _read(lambda: read_regular_beneath(self._root, found, MAX_BYTES + 1))
        if text is None:
            return None
        folder = found.rsplit("/", 1)[0]
        return (
            f"[Instructions from {found}, which apply to the files under {folder}/. The closest "
            f"{FILE_NAME} to a file wins over the workspace root's and any further up.]\n{text}"
        )

    def _closest(self, path: str) -> str | None:
        """The workspace-relative path of the AGENTS.md nearest to `path`, below the root."""
        root = os.path.realpath(self._root)
        try:
            real = str(safe_path(self._root, path))
        except ToolError:
            return None
        folder = os.path.dirname(real)
        while folder.startswith(root + os.sep):
            if os.path.isfile(os.path.join(folder, FILE_NAME)):
                relative = os.path.relpath(folder, root).replace(os.sep, "/")
                return f"{relative}/{FILE_NAME}"
            folder = os.path.dirname(folder)
        return None


def _read(reader: Callable[[], bytes]) -> str | None:
    """The text `reader` gives (at most `MAX_BYTES + 1` bytes), capped at `MAX_BYTES` with a
    note when cut; None when it is unreadable or empty."""
    try:
        data = reader()
    except (OSError, ToolError):
        return None
    if len(data) <= MAX_BYTES:
        return data.decode("utf-8", "replace").strip() or None
    text = data[:MAX_BYTES].decode("utf-8", "ignore")
    return f"{text}\n[cut: only the first {MAX_BYTES} bytes of this file are shown]"
