"""The bubblewrap command line that confines one command (see `harness9.process.sandbox`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

# Namespaces and lifetime: a PID namespace of its own (nothing outlives the command, no other
# process or its environment is visible), a new session (no terminal to push input into), and
# the command dies with bwrap, which the runner kills with its process group.
_LIFETIME = ("--unshare-pid", "--die-with-parent", "--new-session")
_BASE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
# What the availability probe runs: the same namespaces as a real command, network included.
PROBE_ARGS = (*_BASE, "--unshare-net", *_LIFETIME)
# Where the command's seccomp filter reaches bwrap (the launcher puts it there).
SECCOMP_FD = 3
# Host folders of sockets and per-user runtime state (the session bus, agents, docker's
# socket): empty inside.
RUNTIME_FOLDERS = ("/run", "/var/run")


@dataclass(frozen=True, slots=True)
class Layout:
    """What a command sees: `readable` and `writable` folders at their own paths, `protected`
    paths read-only over them, `private_tmp` as `/tmp`, `hidden` paths empty; `network`;
    `as_root` (drop every capability); `seccomp` (a filter waits at `SECCOMP_FD`)."""

    readable: list[str]
    writable: list[str]
    protected: list[str]
    private_tmp: str
    hidden: list[str]
    network: bool
    as_root: bool = False
    seccomp: bool = False


def arguments(program: str, layout: Layout) -> list[str]:
    """`bwrap …` up to (not including) `--`."""
    argv = [program, *_BASE]
    for folder in RUNTIME_FOLDERS:
        if os.path.isdir(folder) and not os.path.islink(folder) and not layout.network:
            argv += ["--tmpfs", folder]
    argv += ["--bind", layout.private_tmp, "/tmp"]
    for folder in layout.readable:
        argv += ["--ro-bind", folder, folder]
    for folder in layout.writable:
        argv += ["--bind", folder, folder]
    for path in layout.protected:
        argv += ["--ro-bind", path, path]
    for path in layout.hidden:  # last: inside a bound folder too
        argv += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    if not layout.network:
        argv.append("--unshare-net")
    if layout.as_root:
        argv += ["--cap-drop", "ALL"]
    if layout.seccomp:
        argv += ["--seccomp", str(SECCOMP_FD)]
    argv += [*_LIFETIME, "--"]
    return argv
