"""What the sandbox guarantees on this machine, each held or not and why (`harness9 doctor`
lists them; `auto` is the default approval mode only where every one holds)."""

from __future__ import annotations

from dataclasses import dataclass

from harness9.process import landlock, seccomp
from harness9.process.sandbox import Availability, Mechanism


@dataclass(frozen=True, slots=True)
class Guarantee:
    """One promise of the sandbox: `held` on this machine, and `why` (how, or why not)."""

    name: str
    held: bool
    why: str


def guarantees(found: Availability) -> list[Guarantee]:
    """The guarantees of the contract's 1.3 sandbox section under the mechanism `found`."""
    if not found.works:
        return [Guarantee("commands are sandboxed", False, found.reason or "no mechanism")]
    if found.mechanism is Mechanism.BWRAP:
        return _bwrap()
    return _landlock(landlock.abi_version())


def all_held(found: Availability) -> bool:
    """Whether every guarantee holds: only then do commands run unasked by default."""
    return all(guarantee.held for guarantee in guarantees(found))


def _filter(what: str) -> Guarantee:
    held = seccomp.supported()
    why = ("a seccomp filter refuses " + what if held
           else "no seccomp filter for this architecture")
    return Guarantee("no socket leaves without network", held, why)


def _common() -> list[Guarantee]:
    return [
        Guarantee("no command shares a process with the daemon", True,
                  "each starts from the launcher, a process of its own with an empty "
                  "environment, and is confined there; the daemon is not dumpable"),
        Guarantee("nothing a command started outlives the daemon", True,
                  "the launcher is the subreaper of every command and kills what is left "
                  "when the daemon is gone"),
        Guarantee("writable roots are the folders they were resolved as", True,
                  "resolved when settings are read; missing or linked ones are left out"),
    ]


def _bwrap() -> list[Guarantee]:
    return [
        *_common(),
        Guarantee("the daemon's environment, memory and signals are out of reach", True,
                  "a PID namespace of its own: the daemon is not visible"),
        _filter("host unix sockets; the network namespace keeps the rest inside"),
        Guarantee("protected paths stay read-only", True,
                  "each existing one is bound read-only; one a command creates is removed"),
        Guarantee("hidden paths read as empty", True, "an empty folder or file over each"),
        Guarantee("no capability that could lift the sandbox", True, "bwrap --cap-drop ALL"),
        Guarantee("no command types into a terminal", True,
                  "a new session, its own /dev/pts, TIOCSTI refused"),
    ]


def _landlock(abi: int) -> list[Guarantee]:
    signals = abi >= 6
    return [
        *_common(),
        Guarantee("the daemon's environment, memory and signals are out of reach", signals,
                  "Landlock keeps ptrace and /proc within the command's domain"
                  + (", and signals (ABI 6)" if signals else
                     f"; signals need Landlock ABI 6 (this kernel: {abi})")),
        _filter("every new socket but socketpair()"),
        Guarantee("protected paths stay read-only", False,
                  "Landlock cannot make a part of the writable workspace read-only: writes to "
                  ".git and the editor's settings are guarded by the approval step only"),
        Guarantee("hidden paths read as empty", True,
                  "their files cannot be read (their names can be listed)"),
        Guarantee("no capability that could lift the sandbox", True,
                  "every capability set emptied before the command starts"),
        Guarantee("no command types into a terminal", True,
                  "no session terminal, /dev/pts out of reach, TIOCSTI refused"),
    ]
