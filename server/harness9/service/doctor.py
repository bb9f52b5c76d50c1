"""`harness9 doctor`'s report: what this machine offers harness9 — which OS sandbox bash runs
in (and why not a better one), each guarantee of the sandbox held or not and why, whether the
daemon runs as root, and the approval mode that follows by default."""

from __future__ import annotations

import os

from harness9.process.guarantees import guarantees
from harness9.process.landlock import abi_version
from harness9.process.sandbox import Mechanism, availability
from harness9.service.config.settings import from_environment, resolve


def doctor_report() -> tuple[list[str], bool]:
    """The report's lines, and whether bash runs sandboxed."""
    found = availability()
    settings = resolve(from_environment(os.environ))
    lines = [f"sandbox: {found.mechanism.value}"]
    if found.mechanism is Mechanism.LANDLOCK:
        lines.append(f"  Landlock ABI {abi_version()}")
    if found.reason:
        lines.append(f"  why not bubblewrap: {found.reason}")
    lines.append("guarantees:")
    for guarantee in guarantees(found):
        mark = "held" if guarantee.held else "NOT held"
        lines.append(f"  {mark}: {guarantee.name} ({guarantee.why})")
    if os.geteuid() == 0:
        lines.append("running as root: commands in the sandbox get no capability; commands "
                     "allowed to run outside it run as root")
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
    elif not settings.auto_is_safe():
        lines.append("  a guarantee above is not held here, so commands are asked about by "
                     "default; install bubblewrap (apt install bubblewrap) for `auto`")
    return lines, settings.sandbox_works()
