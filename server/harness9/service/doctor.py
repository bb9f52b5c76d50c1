"""`harness9 doctor`'s report: what this machine offers harness9 — which OS sandbox bash runs
in (and why not a better one), and the approval mode that follows by default."""

from __future__ import annotations

import os

from harness9.process.landlock import abi_version
from harness9.process.sandbox import Mechanism, availability
from harness9.service.settings import from_environment, resolve


def doctor_report() -> tuple[list[str], bool]:
    """The report's lines, and whether bash runs sandboxed."""
    found = availability()
    settings = resolve(from_environment(os.environ))
    lines = [f"sandbox: {found.mechanism.value}"]
    if found.mechanism is Mechanism.BWRAP:
        lines.append("  bubblewrap works: bash runs with the workspace writable, .git, .vscode "
                     "and .harness9 read-only, no network, a private /tmp")
    elif found.mechanism is Mechanism.LANDLOCK:
        lines.append(f"  Landlock ABI {abi_version()}: bash writes only in the workspace and "
                     "its temporary folder; .git and the editor's settings are guarded by the "
                     "approval step only")
    if found.reason:
        lines.append(f"  why not bubblewrap: {found.reason}")
    setting = settings.sandbox.mode.value
    lines.append(f"sandbox setting: {setting} (HARNESS9_SANDBOX or the client's `sandbox`)")
    lines.append(f"default approval mode: {settings.approval_policy().mode}")
    if found.works and not settings.sandbox_works():
        lines.append("  the sandbox is switched off: bash runs unconfined, and asks before every "
                     "command unless you choose yolo")
    elif not found.works:
        lines.append("  without a sandbox, bash asks before every command unless you choose "
                     "yolo; install bubblewrap (apt install bubblewrap) to let `auto` run "
                     "sandboxed commands unasked")
    return lines, settings.sandbox_works()
