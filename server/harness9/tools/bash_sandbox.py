"""What bash tells of the OS sandbox: the output line that shows a command was stopped by it,
the note the model reads, and the protected paths a command created, removed after it."""

from __future__ import annotations

import asyncio
import os
import re

from harness9.process.protected_tree import ProtectedTree, TreeSnapshot
from harness9.process.sandbox import Mechanism

# Output lines that say the sandbox stopped something: a write refused; without network, a
# connection that failed (nothing listens inside the sandbox, no route leads out).
_WRITE_MARKS = (
    "Read-only file system", "Permission denied", "Operation not permitted",
    "Device or resource busy",  # moving or removing a folder bound read-only
)
_NETWORK_MARKS = (
    "Network is unreachable", "Temporary failure in name resolution", "Could not resolve host",
    "Name or service not known", "No address associated with hostname", "Connection refused",
    "Failed to connect", "Could not connect",
)
_EVIDENCE_CHARS = 200
_TMP_PATH = re.compile(r"/tmp/[^\s'\"`:]+")


async def snapshots(trees: tuple[ProtectedTree, ...]) -> list[TreeSnapshot]:
    """The protected paths of each tree before a command (none outside bubblewrap)."""
    if not trees:
        return []
    return await asyncio.to_thread(lambda: [tree.snapshot() for tree in trees])


async def remove_created(trees: tuple[ProtectedTree, ...],
                          before: list[TreeSnapshot]) -> list[str]:
    """Remove the protected paths the command created (none of its processes is left)."""
    if not trees or len(before) != len(trees):
        return []

    def remove() -> list[str]:
        return [path for tree, snapshot in zip(trees, before, strict=True)
                for path in tree.remove_created(tree.created_since(snapshot))]

    return await asyncio.to_thread(remove)


def _shown(root: str, paths: list[str]) -> str:
    real = os.path.realpath(root)
    return ", ".join(os.path.relpath(path, real) if path.startswith(real + "/") else path
                     for path in paths)


def removed_evidence(root: str, removed: list[str]) -> str:
    return f"created {_shown(root, removed)}, which decides what runs later"[:_EVIDENCE_CHARS]


def removed_note(root: str, removed: list[str]) -> str:
    return (
        f"\n[the OS sandbox removed what this command created: {_shown(root, removed)}. Files "
        "that decide what runs later (git hooks and config, editor settings, .envrc, .harness9) "
        "cannot be created inside the sandbox. If this is needed, call bash again with "
        "escalate: true and a reason; the user is asked.]"
    )


def sandbox_evidence(output: str, *, network: bool = False, hidden_tmp: bool = False
                     ) -> str | None:
    """The first output line that says a write (or, without `network`, a connection) was
    refused, or None. `hidden_tmp`: the command had a private /tmp, so a host folder under /tmp
    it did not find counts too."""
    marks = _WRITE_MARKS if network else _WRITE_MARKS + _NETWORK_MARKS
    for line in output.splitlines():
        if any(mark in line for mark in marks) or (hidden_tmp and _hidden(line)):
            return line.strip()[:_EVIDENCE_CHARS]
    return None


def _hidden(line: str) -> bool:
    """Whether the line says a path under /tmp is missing whose folder the host has."""
    if "No such file or directory" not in line:
        return False
    return any(os.path.isdir(os.path.dirname(path.rstrip("/")))
               for path in _TMP_PATH.findall(line))


def denied_note(mechanism: Mechanism, evidence: str) -> str:
    return (
        f"\n[the OS sandbox ({mechanism.value}) may have stopped this command: {evidence!r}. "
        "If it needs to write outside the workspace or to reach the network, call bash again "
        "with escalate: true and a reason; the user is asked.]"
    )
