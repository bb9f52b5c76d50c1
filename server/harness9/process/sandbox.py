"""The OS sandbox of the commands tools run: bubblewrap where it works, else Landlock, else none.

A sandboxed command may read the whole file system but write only inside the workspace, its
private temporary folder (its `/tmp` and `TMPDIR`) and the `writableRoots`; protected paths
inside those (`.git`, `.vscode`, `.harness9` and the `protect` globs) stay read-only; and it has
no network unless the policy says so. `availability()` probes once which mechanism works on this
machine; `confine` turns a policy into what the process runner applies.

- bubblewrap: the command runs in new mount, PID and (without network) network namespaces: the
  root bound read-only, the writable folders bound read-write, each protected path that exists
  bound read-only over them; a PID namespace of its own, so nothing it starts outlives it and it
  sees no other process (nor their environments).
- Landlock: the kernel denies writes beneath everything but the writable folders (and TCP
  without network, from ABI 4; signals and abstract sockets leaving the sandbox, from ABI 6). It
  cannot make a part of a writable folder read-only, so protected paths are then guarded by the
  approval step only, and background jobs are ended as without a sandbox.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from harness9.process import bwrap, landlock


class SandboxMode(StrEnum):
    """What a sandboxed command may write."""

    WORKSPACE_WRITE = "workspace-write"
    READ_ONLY = "read-only"
    OFF = "off"


class Mechanism(StrEnum):
    """How a command was confined (what `tool_started` and `tool_completed` report)."""

    BWRAP = "bwrap"
    LANDLOCK = "landlock"
    NONE = "none"


# Inside a writable folder, these stay read-only (besides the policy's `protect` globs): what
# decides what git, the editor and harness9 run.
PROTECTED_NAMES = (".git", ".vscode", ".harness9")
_MAX_PROTECTED = 256  # paths a `protect` glob may name; past it, the rest are left out


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """The `sandbox` setting: `mode`, `network`, extra `writable_roots`, `protect` globs."""

    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
    network: bool = False
    writable_roots: tuple[str, ...] = ()
    protect: tuple[str, ...] = ()

    def read_only(self) -> SandboxPolicy:
        """This policy for commands that may change nothing (plan mode, read-only): the
        sandbox read-only and `writable_roots` ignored, so only the command's private
        temporary folder is writable."""
        return replace(self, mode=SandboxMode.READ_ONLY, writable_roots=())


@dataclass(frozen=True, slots=True)
class Availability:
    """Which mechanism works here; `reason` says why a better one does not (empty for bwrap)."""

    mechanism: Mechanism
    reason: str = ""

    @property
    def works(self) -> bool:
        """Whether commands can be sandboxed at all."""
        return self.mechanism is not Mechanism.NONE


@dataclass(frozen=True, slots=True)
class Confinement:
    """What the process runner applies to one command: a command-line `prefix` (bwrap), a
    confined `spawner` thread to start it from (Landlock), and environment overrides."""

    mechanism: Mechanism
    prefix: tuple[str, ...] = ()
    spawner: landlock.Spawner | None = None
    env: Mapping[str, str] | None = None


NO_CONFINEMENT = Confinement(Mechanism.NONE)


def availability(path: str | None = None) -> Availability:
    """The mechanism that works on this machine, probed once per PATH (bwrap is looked up on
    `path`, default the daemon's PATH); `HARNESS9_LANDLOCK=0` leaves Landlock out (bubblewrap
    or nothing, for who wants `.git` protected by the sandbox or asked about)."""
    path = path if path is not None else os.environ.get("PATH", "")
    return _probe(path, os.environ.get("HARNESS9_LANDLOCK") != "0")


@functools.cache
def _probe(path: str, use_landlock: bool = True) -> Availability:
    if not sys.platform.startswith("linux"):
        return Availability(Mechanism.NONE, f"no sandbox on {sys.platform} yet (Linux only)")
    program = shutil.which("bwrap", path=path)
    why_not_bwrap = "bubblewrap is not installed (apt install bubblewrap)"
    if program is not None:
        failure = _bwrap_fails(program)
        if failure is None:
            return Availability(Mechanism.BWRAP)
        why_not_bwrap = f"bubblewrap does not work here ({failure})"
    if not use_landlock:
        return Availability(Mechanism.NONE,
                            f"{why_not_bwrap}, and Landlock is turned off (HARNESS9_LANDLOCK=0)")
    abi = landlock.abi_version()
    if abi >= 1:
        return Availability(Mechanism.LANDLOCK, f"{why_not_bwrap}; Landlock ABI {abi} is used")
    return Availability(
        Mechanism.NONE,
        f"{why_not_bwrap}, and Landlock is not enabled in this kernel (Linux 5.13 or newer, "
        "with landlock in its lsm= list)",
    )


def _bwrap_fails(program: str) -> str | None:
    """Why bwrap cannot make the sandbox commands get (None: it can)."""
    try:
        proc = subprocess.run(
            [program, *bwrap.PROBE_ARGS, "--", "true"],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if proc.returncode == 0:
        return None
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


def confine(
    policy: SandboxPolicy, root: str, found: Availability, bwrap_path: str | None = None
) -> Confinement:
    """How to run a command of workspace `root` under `policy` with the mechanism `found`."""
    if policy.mode is SandboxMode.OFF or not found.works:
        return NO_CONFINEMENT
    real_root = os.path.realpath(root)
    private = private_temp(real_root)
    writable = [] if policy.mode is SandboxMode.READ_ONLY else [real_root]
    writable += [os.path.realpath(os.path.expanduser(path)) for path in policy.writable_roots]
    if found.mechanism is Mechanism.BWRAP:
        program = shutil.which("bwrap", path=bwrap_path) or "bwrap"
        readable = [real_root] if real_root not in writable else []
        protected = protected_paths(writable, policy.protect)
        prefix = bwrap.arguments(program, readable, writable, protected, private, policy.network)
        return Confinement(Mechanism.BWRAP, tuple(prefix), env={"TMPDIR": "/tmp"})
    confined = landlock.spawner([*writable, private], policy.network)
    return Confinement(Mechanism.LANDLOCK, spawner=confined, env={"TMPDIR": private})


def protected_paths(writable: list[str], protect: tuple[str, ...]) -> list[str]:
    """The existing paths inside `writable` folders that stay read-only: each folder's
    `.git`, `.vscode`, `.harness9`, and what the `protect` globs (relative to each) name."""
    found: list[str] = []
    for folder in writable:
        base = Path(folder)
        names = [base / name for name in PROTECTED_NAMES]
        for pattern in protect:
            names += list(_bounded_glob(base, pattern))
        for path in names:
            if os.path.lexists(path) and len(found) < _MAX_PROTECTED:
                real = os.path.realpath(path)
                if any(_is_within(real, top) for top in writable):
                    found.append(real)
    return sorted(set(found))


def _bounded_glob(base: Path, pattern: str) -> list[Path]:
    if os.path.isabs(pattern):
        pattern = os.path.relpath(pattern, base)
    if pattern.startswith(".."):
        return []
    matches: list[Path] = []
    for path in base.glob(pattern):
        matches.append(path)
        if len(matches) >= _MAX_PROTECTED:
            break
    return matches


def _is_within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


_PRIVATE: dict[str, str] = {}


def private_temp(root: str) -> str:
    """This daemon's private temporary folder for commands of workspace `root` (0700, kept
    across calls, removed when the daemon exits)."""
    folder = _PRIVATE.get(root)
    if folder is None or not os.path.isdir(folder):
        folder = tempfile.mkdtemp(prefix="harness9-tmp-")
        _PRIVATE[root] = folder
    return folder


@atexit.register
def _remove_private() -> None:
    for folder in _PRIVATE.values():
        shutil.rmtree(folder, ignore_errors=True)
