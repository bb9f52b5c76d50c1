"""The OS sandbox of the commands tools run: bubblewrap where it works, else Landlock, else none.

A sandboxed command may read the file system but for the hidden paths (harness9's own config
and state folders, `hide`), write only inside the workspace, its private temporary folder (its
`/tmp` and `TMPDIR`) and the `writableRoots`; protected paths inside those (every name of the
"always asked" list at any depth, git's hooks folder and the `protect` globs: `protected_tree`)
stay read-only, and one it creates is removed after it; and it has no network unless the policy
says so. Every command is started by the launcher (`launcher.py`), never from a thread of the
daemon, and confined in its own process: so it shares no Landlock domain with the daemon, and
nothing it starts outlives the daemon. `availability()` probes once which mechanism works on
this machine; `confine` turns a policy into what the launcher applies.

- bubblewrap: new mount, PID and (without network) network namespaces: the root bound
  read-only, hidden folders as empty ones, the writable folders bound read-write, each protected
  path that exists bound read-only over them; a PID namespace of its own, so nothing it starts
  outlives it and it sees no other process; no capabilities (a daemon running as root too); the
  seccomp filter (`seccomp.py`), which without network leaves only the sandbox's own loopback.
- Landlock: the kernel denies writes beneath everything but the writable folders and reads of
  the hidden paths and other terminals (`landlock.py`); the seccomp filter refuses every new
  socket without network; no capabilities. It cannot make a part of a writable folder
  read-only, so protected paths are then guarded by the approval step only.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from harness9.process import bwrap, landlock, seccomp
from harness9.process.protected_tree import ProtectedTree


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


# What commands never read (`sandbox.hide`'s default): the user's credentials of other tools.
DEFAULT_HIDE = ("~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.docker", "~/.kube",
                "~/.config/gcloud")


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """The `sandbox` setting: `mode`, `network`, extra `writable_roots` (resolved real paths),
    `protect` globs, and the paths commands cannot read (`hide`, `~` allowed)."""

    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
    network: bool = False
    writable_roots: tuple[str, ...] = ()
    protect: tuple[str, ...] = ()
    hide: tuple[str, ...] = DEFAULT_HIDE

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
    """What the launcher applies to one command: a command-line `prefix` (bwrap), the
    Landlock rules and seccomp filter its process takes on (see `launch_server`), whether it
    drops every capability, and environment overrides."""

    mechanism: Mechanism
    prefix: tuple[str, ...] = ()
    landlock: Mapping[str, Any] | None = None
    seccomp: Mapping[str, Any] | None = None
    drop_caps: bool = False
    env: Mapping[str, str] | None = None
    # Where a protected path the command creates is removed after it (bubblewrap: nothing of
    # the command outlives its call, so nothing can create one after the check).
    guard: tuple[ProtectedTree, ...] = ()


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
    policy: SandboxPolicy, root: str, found: Availability, bwrap_path: str | None = None,
    *, launched: bool = True, installed: Sequence[str] = (),
) -> Confinement:
    """How to run a command of workspace `root` under `policy` with the mechanism `found`.
    `launched` False: a process started by other means than the launcher (an MCP server),
    which cannot hand bubblewrap a seccomp filter. `installed`: folders the program itself
    lives in, readable also where the sandbox shows a folder of its own (bubblewrap's private
    `/tmp`: a language server installed in a virtual environment there)."""
    if policy.mode is SandboxMode.OFF or not found.works:
        return NO_CONFINEMENT
    real_root = os.path.realpath(root)
    private = private_temp(real_root)
    writable = [] if policy.mode is SandboxMode.READ_ONLY else [real_root]
    writable += [path for path in policy.writable_roots if path_is_itself(path)]
    hidden = around_root(hidden_paths(policy.hide), real_root)
    if found.mechanism is Mechanism.BWRAP:
        program = shutil.which("bwrap", path=bwrap_path) or "bwrap"
        readable = [real_root] if real_root not in writable else []
        # Only what the private /tmp covers: bound again, an ancestor of /tmp would undo it.
        readable += [path for path in installed
                     if path.startswith("/tmp/") and path_is_itself(path)]
        trees = protected_trees(writable, policy.protect)
        protected = sorted({path for tree in trees for path in tree.existing()})
        filtered = launched and seccomp.supported()
        prefix = bwrap.arguments(program, bwrap.Layout(
            readable, writable, protected, private, hidden, policy.network,
            as_root=os.geteuid() == 0, seccomp=filtered))
        filter_spec = None
        if filtered:
            families = None if policy.network else [seccomp.AF_INET, seccomp.AF_INET6,
                                                    seccomp.AF_NETLINK]
            filter_spec = {"families": families, "fd": bwrap.SECCOMP_FD}
        return Confinement(Mechanism.BWRAP, tuple(prefix), seccomp=filter_spec,
                           env={"TMPDIR": "/tmp"}, guard=trees)
    rules = {"writable": [*writable, private], "network": policy.network, "hidden": hidden}
    filter_spec = None
    if seccomp.supported():
        filter_spec = {"families": None if policy.network else [], "fd": None}
    return Confinement(Mechanism.LANDLOCK, landlock=rules, seccomp=filter_spec, drop_caps=True,
                       env={"TMPDIR": private})


def path_is_itself(path: str) -> bool:
    """Whether `path` still names the folder it was resolved as: it exists and no link lies on
    the way (a root swapped for a link is not written through)."""
    return os.path.isdir(path) and os.path.realpath(path) == os.path.normpath(path)


def resolve_roots(roots: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """`writableRoots` resolved once: (the real paths kept, a warning for each one left out
    because it is missing or reached through a link)."""
    kept: list[str] = []
    warnings: list[str] = []
    for root in roots:
        path = os.path.abspath(os.path.expanduser(root))
        if not os.path.isdir(path):
            warnings.append(f"sandbox.writableRoots: {root} is not a folder here; left out")
        elif os.path.realpath(path) != path:
            warnings.append(f"sandbox.writableRoots: {root} is reached through a link "
                            f"(to {os.path.realpath(path)}); left out, name the folder itself")
        else:
            kept.append(path)
    return tuple(kept), warnings


def hidden_paths(hide: tuple[str, ...]) -> list[str]:
    """The real paths of what `hide` names that exist (`~` expanded)."""
    found: list[str] = []
    for path in hide:
        expanded = os.path.abspath(os.path.expanduser(path))
        if os.path.lexists(expanded):
            found.append(os.path.realpath(expanded))
    return sorted(set(found))


def around_root(hidden: list[str], root: str) -> list[str]:
    """`hidden` with each folder that holds `root` (a task's worktree in the state folder)
    replaced by what it holds besides the way down to `root`: still hidden, but the root."""
    kept: list[str] = []
    for path in hidden:
        if not root.startswith(path.rstrip(os.sep) + os.sep):
            kept.append(path)
            continue
        folder = path
        for part in os.path.relpath(root, path).split(os.sep):
            try:
                names = os.listdir(folder)
            except OSError:
                break
            kept += [os.path.join(folder, name) for name in names if name != part]
            folder = os.path.join(folder, part)
    return sorted(set(kept))


_TREES: dict[tuple[str, tuple[str, ...]], ProtectedTree] = {}
_TREES_LOCK = threading.Lock()


def protected_trees(writable: list[str], protect: tuple[str, ...]) -> tuple[ProtectedTree, ...]:
    """The protected paths of each writable folder (kept: repeated scans are cheap)."""
    trees = []
    with _TREES_LOCK:
        for folder in writable:
            tree = _TREES.get((folder, protect))
            if tree is None:
                tree = _TREES[(folder, protect)] = ProtectedTree(folder, protect)
            trees.append(tree)
    return tuple(trees)


def protected_paths(writable: list[str], protect: tuple[str, ...]) -> list[str]:
    """The existing paths inside `writable` folders that stay read-only: every name of the
    "always asked" list at any depth, git's hooks folder, and what the `protect` globs
    (relative to each folder) name."""
    found: set[str] = set()
    for tree in protected_trees(writable, protect):
        found.update(tree.existing())
    return sorted(found)


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
