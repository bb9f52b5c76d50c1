"""Running `git` on a shadow repository: its own GIT_DIR, the workspace as its work tree.

The user's repository, configuration, hooks and credentials never come into it: the
environment is built from scratch (no inherited `GIT_*`, no global or system config, a fixed
identity), so a user's `commit.gpgsign`, `core.autocrlf` or `core.hooksPath` cannot change what
is stored or make a snapshot hang. The workspace's `.gitattributes` cannot either: the shadow
repository's own `info/attributes` (which outranks them) turns off every conversion, so a
file is stored byte for byte (no line-ending change, no `ident`, no encoding, no filter).

The repository holds copies of the user's files, secrets included: git runs with a umask of
077, so everything it writes is the user's alone (folders 0700, files 0600 or 0400).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness9.service.state import PRIVATE, private_folder
from harness9.workspace.atomic_write import atomic_write_bytes

_CONFIG = {
    "core.autocrlf": "false",  # bytes in, bytes out: CRLF files come back as they were
    "core.safecrlf": "false",
    "core.symlinks": "true",
    "core.quotePath": "false",
    "core.fsmonitor": "false",
    "core.looseCompression": "1",  # speed over size: snapshots are local and pruned
    "pack.compression": "1",
    "core.untrackedCache": "true",
    "gc.auto": "0",  # pruned in the background, never in the middle of a run
    "advice.addEmbeddedRepo": "false",
    "advice.detachedHead": "false",
    "core.sharedRepository": "false",  # the umask (077) decides: the user's alone
}
# Highest precedence of all attribute files: no conversion of any kind, whatever the workspace's
# .gitattributes (or a macro defined there) ask for.
ATTRIBUTES = "* -text -ident -filter !eol !working-tree-encoding\n"


class GitError(Exception):
    """A git command failed; the message has its stderr."""


def git_executable() -> str | None:
    """The `git` on PATH, or None when there is none."""
    return shutil.which("git")


@dataclass(frozen=True, slots=True)
class ShadowGit:
    """`git` bound to one shadow repository and one work tree."""

    executable: str
    git_dir: Path
    work_tree: str

    def environment(self) -> dict[str, str]:
        """A clean environment: nothing of the user's git set-up, nothing of the daemon's."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.git_dir),
            "LC_ALL": "C",
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": self.work_tree,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "harness9",
            "GIT_AUTHOR_EMAIL": "checkpoints@harness9.invalid",
            "GIT_COMMITTER_NAME": "harness9",
            "GIT_COMMITTER_EMAIL": "checkpoints@harness9.invalid",
        }

    async def run(
        self, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)
    ) -> bytes:
        """Run `git args…` in the work tree and return its stdout; `GitError` otherwise."""
        process = await asyncio.create_subprocess_exec(
            self.executable,
            *args,
            cwd=self.work_tree,
            env=self.environment(),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            umask=PRIVATE,
        )
        out, err = await process.communicate(stdin)
        if process.returncode not in ok:
            message = err.decode("utf-8", "replace").strip() or f"exit status {process.returncode}"
            raise GitError(f"git {args[0]}: {message}")
        return out

    async def init(self, excludes: list[str], top: Path) -> None:
        """Create the shadow repository (once) with our settings, attributes and exclude list,
        private to the user below `top` (the state directory; see `state.private_folder`)."""
        await asyncio.to_thread(private_folder, self.git_dir, top)
        if not (self.git_dir / "HEAD").exists():
            await self.run("init", "--quiet")
        for key, value in _CONFIG.items():
            await self.run("config", key, value)
        info = self.git_dir / "info"
        info.mkdir(mode=0o700, exist_ok=True)
        _write(info / "exclude", "\n".join(excludes) + "\n")
        attributes = info / "attributes"
        if not attributes.exists() or attributes.read_text(encoding="utf-8") != ATTRIBUTES:
            _write(attributes, ATTRIBUTES)
            # An index made under other attributes holds converted blobs for files whose stat
            # has not changed since: without it, the next snapshot reads every file again.
            (self.git_dir / "index").unlink(missing_ok=True)

    async def missing(self, oids: list[str]) -> list[str]:
        """Those of `oids` the repository does not hold."""
        if not oids:
            return []
        out = await self.run("cat-file", "--batch-check", stdin="".join(
            f"{oid}\n" for oid in oids).encode())
        return [line.split()[0] for line in out.decode().splitlines() if line.endswith(" missing")]

    async def start(self, *args: str) -> asyncio.subprocess.Process:
        """A long-lived `git args…` to talk to through its stdin and stdout."""
        return await asyncio.create_subprocess_exec(
            self.executable,
            *args,
            cwd=self.work_tree,
            env=self.environment(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            umask=PRIVATE,
        )


def _write(path: Path, text: str) -> None:
    """One of the repository's own files, 0600."""
    atomic_write_bytes(path, text.encode("utf-8"), 0o600)


class BlobReader:
    """The stored bytes of blobs, many through one `git cat-file --batch` (started again when
    a damaged object ended the one before)."""

    def __init__(self, git: ShadowGit) -> None:
        self._git = git
        self._process: asyncio.subprocess.Process | None = None

    async def read(self, oid: str) -> bytes:
        """The bytes of blob `oid`, exactly as stored; `GitError` when it cannot be read."""
        process = await self._running()
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            process.stdin.write(f"{oid}\n".encode())
            await process.stdin.drain()
            header = (await process.stdout.readline()).split()
            if len(header) != 3 or header[1] != b"blob":
                raise GitError(f"git cat-file: {oid} is not a stored blob")
            data = await process.stdout.readexactly(int(header[2]) + 1)
        except (OSError, asyncio.IncompleteReadError, GitError) as exc:
            said = await self._stop()
            raise GitError(f"git cat-file: cannot read {oid}: {said or exc}") from None
        return data[:-1]

    async def _running(self) -> asyncio.subprocess.Process:
        if self._process is None or self._process.returncode is not None:
            self._process = await self._git.start("cat-file", "--batch")
        return self._process

    async def _stop(self) -> str:
        """End the process; what it said on stderr."""
        process, self._process = self._process, None
        if process is None:
            return ""
        if process.returncode is None:
            process.kill()
        _, err = await process.communicate()
        return err.decode("utf-8", "replace").strip()

    async def close(self) -> None:
        """End the process."""
        await self._stop()
