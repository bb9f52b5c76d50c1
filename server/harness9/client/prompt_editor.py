"""The prompt between runs on a terminal: a line editor (prompt_toolkit).

Enter sends the line, Alt-Enter (or Escape, Enter) starts a new line in it; Up and Down walk
the workspace's earlier prompts, kept in a file of the user's alone under the state directory;
Tab completes `/commands` and `@paths`; Ctrl-C clears the line, Ctrl-D on an empty line ends
the session. Only the interactive mode on a terminal imports this (and prompt_toolkit).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from harness9.client.completion import PromptCompleter

HISTORY_FOLDER = "prompt-history"
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC


def state_dir(env: Mapping[str, str]) -> Path:
    """Where harness9 keeps state, as the daemon finds it: `HARNESS9_STATE_DIR`, else
    `$XDG_STATE_HOME/harness9`, else `~/.local/state/harness9`."""
    if env.get("HARNESS9_STATE_DIR"):
        return Path(env["HARNESS9_STATE_DIR"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "harness9"
    return Path.home() / ".local" / "state" / "harness9"


def history_file(workspace: Path, env: Mapping[str, str]) -> Path:
    """The file of the workspace's prompts: its folder's name and a hash of its real path."""
    real = os.path.realpath(workspace)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))
    return state_dir(env) / HISTORY_FOLDER / f"{name[:40] or 'root'}-{digest}"


def private_file(path: Path) -> Path:
    """`path` made (with its missing folders, 0700) as a file only the user can read (0600);
    raises `OSError` when it cannot be."""
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
    fd = os.open(path, _FILE_FLAGS, 0o600)
    try:
        os.fchmod(fd, 0o600)  # one made before with the umask's bits
    finally:
        os.close(fd)
    return path


def workspace_history(workspace: Path, env: Mapping[str, str]) -> History:
    """The workspace's prompt history; kept in memory only when its file cannot be made."""
    try:
        return FileHistory(private_file(history_file(workspace, env)))
    except OSError:
        return InMemoryHistory()


def key_bindings() -> KeyBindings:
    """Alt-Enter adds a line break; Ctrl-C clears the line instead of ending the session."""
    keys = KeyBindings()

    @keys.add("escape", "enter")
    def _new_line(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @keys.add("c-c")
    def _clear(event: KeyPressEvent) -> None:
        event.current_buffer.reset()

    return keys


def _continuation(width: int, line_number: int, wrap_count: int) -> str:
    """What stands before the second and later lines of the prompt: spaces as wide as `› `."""
    return " " * width


class PromptEditor:
    """Reads one prompt at a time from the terminal."""

    def __init__(
        self, workspace: Path, names: Callable[[], Iterable[str]], env: Mapping[str, str]
    ) -> None:
        self._session: PromptSession[str] = PromptSession(
            history=workspace_history(workspace, env),
            completer=PromptCompleter(names, workspace),
            complete_while_typing=False,
            key_bindings=key_bindings(),
            prompt_continuation=_continuation,
            reserve_space_for_menu=6,
        )

    async def read(self, prompt: str, prefill: str = "") -> str | None:
        """The next prompt typed (`prefill` already on the line); None after Ctrl-D."""
        try:
            # handle_sigint off: it would take the client's own SIGINT handler away for good.
            return await self._session.prompt_async(
                FormattedText([("bold", prompt)]), default=prefill, handle_sigint=False
            )
        except EOFError:
            return None
