"""The bubblewrap command line that confines one command (see `harness9.process.sandbox`)."""

from __future__ import annotations

# Namespaces and lifetime: a PID namespace of its own (nothing outlives the command, no other
# process or its environment is visible), a new session (no terminal to push input into), and
# the command dies with bwrap, which the runner kills with its process group.
_LIFETIME = ("--unshare-pid", "--die-with-parent", "--new-session")
_BASE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
# What the availability probe runs: the same namespaces as a real command, network included.
PROBE_ARGS = (*_BASE, "--unshare-net", *_LIFETIME)


def arguments(
    program: str, readable: list[str], writable: list[str], protected: list[str],
    private_tmp: str, network: bool,
) -> list[str]:
    """`bwrap …` up to (not including) `--`: the root read-only, `private_tmp` as `/tmp`, each
    `readable` folder read-only and each `writable` one read-write at its own path (they may be
    under `/tmp`), each `protected` path read-only over them."""
    argv = [program, *_BASE, "--bind", private_tmp, "/tmp"]
    for folder in readable:
        argv += ["--ro-bind", folder, folder]
    for folder in writable:
        argv += ["--bind", folder, folder]
    for path in protected:
        argv += ["--ro-bind", path, path]
    if not network:
        argv.append("--unshare-net")
    argv += [*_LIFETIME, "--"]
    return argv
