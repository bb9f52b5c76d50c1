"""The `bash` tool: run a shell command in the workspace root and return its combined output.

No allow or deny list (the seed's "YOLO" choice): the model may run anything, so the guarantees
are about resources instead. The command runs for at most 30 s (less when the engine's per-tool
deadline is nearer); its output is capped at 8000 bytes, keeping the head and the tail, which is
where build and test tools put what matters; its environment is the daemon's without the
secrets (`environment.ToolEnvironment`); and when the call ends its whole process group is
killed, background jobs included, so nothing outlives a call unless the command detached it into
a new session on purpose, and nothing at all outlives the daemon (see `process/reaper.py`).
While it runs, its output also goes, as it is read, to the call's `OUTPUT_SINK` when one is set
(the engine shows it to the user live); the result is the same either way.

With a sandbox policy (`harness9.process.sandbox`), the command runs in the OS sandbox unless
the approval step waived it for this call (`SANDBOX_WAIVED`); the model may ask to leave it
(`escalate` with a `reason`), and a failure that looks like the sandbox's doing is reported
(`ToolOutput.sandbox_denied`) so the step can offer to run it outside.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import signal
from typing import Any

from harness9.process.reaper import kill_all_groups
from harness9.process.sandbox import (
    NO_CONFINEMENT,
    Availability,
    Confinement,
    Mechanism,
    SandboxMode,
    SandboxPolicy,
    availability,
    confine,
)
from harness9.process.shell_runner import OutputBuffer, run_shell
from harness9.process.tool_environment import DEFAULT_TOOL_ENVIRONMENT, ToolEnvironment
from harness9.schema import ProcessExit, ToolDefinition, ToolError, ToolKind
from harness9.tools.bash_sandbox import (
    denied_note,
    remove_created,
    removed_evidence,
    removed_note,
    sandbox_evidence,
    snapshots,
)
from harness9.tools.contract import (
    OUTPUT_SINK,
    SANDBOX_WAIVED,
    ToolOutput,
    ToolTimeoutError,
    parse_arguments,
    seconds_left,
    string_property,
    tool_definition,
)

__all__ = ["HARD_TIMEOUT_SECONDS", "MAX_OUTPUT_BYTES", "BashTool", "kill_all_groups"]

HARD_TIMEOUT_SECONDS = 30.0
MAX_OUTPUT_BYTES = 8000

_DESCRIPTION = f"""\
Run a command with `bash -c` in the workspace root and return its output (stdout and \
stderr combined, in order). stdin is empty, so interactive programs get end-of-file.
Its environment leaves out secrets: the API keys and, unless the user configured otherwise, \
variables whose names contain KEY, SECRET, TOKEN or PASSWORD.
The command may run for at most {HARD_TIMEOUT_SECONDS:g} seconds; then it is killed and you \
get the output so far. The output is capped at {MAX_OUTPUT_BYTES} bytes: past that, the first \
and the last {MAX_OUTPUT_BYTES // 2} bytes are kept with a notice giving the total size, so \
filter long output (grep, head, tail) for what you need. A non-zero exit is reported on a last \
line `exit status N`.
Background jobs (`cmd &`) are killed when the command returns; to leave a server running, \
detach it explicitly: `setsid nohup CMD > server.log 2>&1 &` (it runs until harness9 exits)."""

_SANDBOXED = """
It runs in an OS sandbox: it can read everything but the user's credentials, and write only \
in the workspace and its temporary folder ($TMPDIR, /tmp){protected}, {network}{lifetime}. \
If a command needs more (installing packages over the network, writing elsewhere), call bash \
with `escalate: true` and a `reason`: the user is asked, and if allowed it runs outside the \
sandbox. A command the sandbox stopped is offered to the user to run outside too."""


class BashTool:
    """Runs shell commands in the workspace root."""

    name = "bash"

    def __init__(
        self,
        workdir: str | os.PathLike[str],
        *,
        hard_timeout: float = HARD_TIMEOUT_SECONDS,
        max_output: int = MAX_OUTPUT_BYTES,
        environment: ToolEnvironment = DEFAULT_TOOL_ENVIRONMENT,
        sandbox: SandboxPolicy | None = None,
        found: Availability | None = None,
    ) -> None:
        """`sandbox` None or mode off: no sandbox; `found`: the mechanism to use (default:
        what `availability()` probes on this machine)."""
        self._workdir = os.fspath(workdir)
        self._environment = environment
        self._hard_timeout = hard_timeout
        self._max_output = max_output
        self._policy = sandbox if sandbox is not None else SandboxPolicy(SandboxMode.OFF)
        if self._policy.mode is SandboxMode.READ_ONLY:  # read-only ignores writableRoots
            self._policy = self._policy.read_only()
        self._found = found

    @property
    def sandboxed(self) -> bool:
        """Whether commands run in an OS sandbox (unless a call is waived)."""
        return self._mechanism() is not Mechanism.NONE

    def sandbox_label(self) -> str:
        """The sandbox the current call runs in (`none` when waived, off or unavailable)."""
        return Mechanism.NONE.value if SANDBOX_WAIVED.get() else self._mechanism().value

    def _mechanism(self) -> Mechanism:
        if self._policy.mode is SandboxMode.OFF:
            return Mechanism.NONE
        if self._found is None:
            self._found = availability()
        return self._found.mechanism

    def _confinement(self) -> Confinement:
        if SANDBOX_WAIVED.get() or self._mechanism() is Mechanism.NONE:
            return NO_CONFINEMENT
        assert self._found is not None  # set by _mechanism
        return confine(self._policy, self._workdir, self._found)

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model (with `escalate` and `reason`
        when commands run sandboxed)."""
        properties: dict[str, Any] = {
            "command": string_property("The command line to run (pipes, &&, redirections work)")
        }
        description = _DESCRIPTION
        if self.sandboxed:
            properties["escalate"] = {
                "type": "boolean",
                "description": "Ask the user to run this command outside the OS sandbox",
            }
            properties["reason"] = string_property(
                "With escalate: why the command needs to leave the sandbox (shown to the user)"
            )
            description += self._sandbox_text()
        return tool_definition(self.name, description, properties, ["command"],
                               kind=ToolKind.EXECUTE)

    def _sandbox_text(self) -> str:
        protected = ("; what decides what runs later (.git and git hooks, editor settings, "
                     ".envrc, .harness9, at any depth) stays read-only and cannot be created")
        if self._mechanism() is Mechanism.LANDLOCK:
            protected = ""
        if self._policy.mode is SandboxMode.READ_ONLY:
            protected = "; nothing in the workspace (read-only)"
        network = "with network" if self._policy.network else "without network"
        lifetime = ""
        if self._mechanism() is Mechanism.BWRAP:
            lifetime = ", and nothing it starts outlives it (not even a detached job)"
        return _SANDBOXED.format(protected=protected, network=network, lifetime=lifetime)

    async def execute(self, arguments: str) -> ToolOutput:
        """Run the command; a non-zero exit is a normal result, a timeout a `ToolTimeoutError`."""
        command: str = parse_arguments(arguments)["command"]
        if not command.strip():
            raise ToolError("Error: the command is empty")
        if "\x00" in command:  # exec cannot pass it; the model gets a reason, not a crash
            raise ToolError("Error: the command contains a NUL character (\\u0000), which a "
                            "command line cannot carry; write the text without it")
        budget = seconds_left(self._hard_timeout)
        if budget <= 0:
            raise ToolTimeoutError("Error: no time left to run the command (the deadline passed)")
        try:
            # Off the event loop: finding protected paths lists the workspace's changed folders.
            confinement = await asyncio.to_thread(self._confinement)
            before = await snapshots(confinement.guard)
            env = self._environment.apply(os.environ)
            try:
                result = await run_shell(command, self._workdir, budget, self._max_output, env,
                                         OUTPUT_SINK.get(), confinement)
            finally:
                removed = await remove_created(confinement.guard, before)
        except OSError as exc:
            raise ToolError(f"Error: cannot start bash: {exc.strerror or exc}") from None
        if result.timed_out:
            raise ToolTimeoutError(_timeout_text(result.output, budget))
        returncode = result.returncode
        if confinement.mechanism is Mechanism.BWRAP:
            returncode = _unwrapped(returncode)
        text = _result_text(result.output, returncode)
        denied = None
        if confinement.mechanism is not Mechanism.NONE and returncode:
            denied = sandbox_evidence(text, network=self._policy.network,
                                      hidden_tmp=confinement.mechanism is Mechanism.BWRAP)
        if removed:
            denied = removed_evidence(self._workdir, removed)
            text += removed_note(self._workdir, removed)
        elif denied is not None:
            text += denied_note(confinement.mechanism, denied)
        return ToolOutput(
            text=text,
            bytes=result.output.total,
            truncated=result.output.truncated,
            exit=process_exit(returncode),
            sandbox=confinement.mechanism.value,
            sandbox_denied=denied,
        )


def render_output(output: OutputBuffer) -> str:
    """The kept output as text: invalid UTF-8 replaced, a notice where bytes were dropped."""
    head, tail = output.parts()
    if not tail:
        return head.decode("utf-8", "replace")
    # Cut on character boundaries: no U+FFFD where the cap split a multi-byte character.
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    head_text = decoder.decode(head, final=False)
    head_used = len(head) - len(decoder.getstate()[0])
    skip = 0
    while skip < min(3, len(tail)) and tail[skip] & 0xC0 == 0x80:
        skip += 1
    tail_text = tail[skip:].decode("utf-8", "replace")
    omitted = output.total - head_used - (len(tail) - skip)
    return (
        f"{head_text}\n\n[output truncated: {output.total} bytes in total; showing the first "
        f"{head_used} and the last {len(tail) - skip} bytes, {omitted} bytes omitted]\n\n"
        f"{tail_text}"
    )


def _unwrapped(returncode: int | None) -> int | None:
    """bwrap's exit status as bash's: bwrap exits 128 + N when a signal N killed the command
    (so a command that itself exits 129…192 is read as killed by a signal too)."""
    if returncode is not None and 128 < returncode <= 128 + 64:
        return -(returncode - 128)
    return returncode


def _result_text(output: OutputBuffer, returncode: int | None) -> str:
    text = render_output(output)
    status = _status_line(returncode)
    if status is None:
        return text or "(no output)"
    if text and not text.endswith("\n"):
        text += "\n"
    return text + status


def process_exit(returncode: int | None) -> ProcessExit | None:
    """How bash ended, for clients: its exit code, or the name of the signal that killed it
    (None: it was stopped at its time budget)."""
    if returncode is None:
        return None
    if returncode < 0:
        return ProcessExit(signal=_signal_name(-returncode))
    return ProcessExit(code=returncode)


def _status_line(returncode: int | None) -> str | None:
    """The model's last line: `exit status N`, `killed by signal SIGTERM (15)`, or none."""
    if not returncode:
        return None
    if returncode < 0:
        name = _signal_name(-returncode)
        number = "" if name == str(-returncode) else f" ({-returncode})"
        return f"killed by signal {name}{number}"
    return f"exit status {returncode}"


def _signal_name(number: int) -> str:
    """`SIGKILL`, or the number as text for a signal without a name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _timeout_text(output: OutputBuffer, budget: float) -> str:
    text = render_output(output)
    seconds = f"{budget:.1f}".rstrip("0").rstrip(".")
    if text and not text.endswith("\n"):
        text += "\n"
    so_far = "the output so far is above" if text else "it printed nothing"
    return (
        f"{text}Error: the command timed out after {seconds} s and was killed, with every process "
        f"it started ({so_far}). Run a faster or narrower command, or detach a long job: "
        "`setsid nohup CMD > job.log 2>&1 &`, then check job.log."
    )
