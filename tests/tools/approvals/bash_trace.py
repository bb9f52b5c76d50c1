"""Run command lines through real bash and record what they ran and which files they made.

The commands a line can run are marker commands (`m1` … `m4`): shell functions (exported, so
`bash -c` has them) and, for `command m1`, `env m1`, `exec m1` and absolute paths, scripts of
the same names. Each writes its name and arguments to a file of its own, `.trace.*` in the
current folder (calls that run at once, background jobs and pipelines, never mix their
records). Every
line runs as the bash tool runs it (`bash -c LINE` in a folder of its own), many lines per bash
process. A pipe end that every process inherits tells when the last of them (a background job,
a process substitution) has exited.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

MARKERS = ("m1", "m2", "m3", "m4")
BIN = "@BIN@"  # stands for the markers' folder in generated lines
_TRACE = ".trace."
# mktemp (by its full path: a line may change PATH) makes the record's file, which `>>` fills
# (`set -C` does not refuse it); the variable's name keeps clear of the generated lines'.
_RECORD = ("h9_trace=$(" + (shutil.which("mktemp") or "mktemp") + " ./" + _TRACE
           + "XXXXXXXX) && printf '%s\\0' {name} \"$#\" \"$@\" >> \"$h9_trace\"")
_SYNC_FD = 19


@dataclass(frozen=True)
class Ran:
    """What one line did: the marker calls (name, arguments) and the files it created
    (relative to its folder; `../x` for one beside it)."""

    calls: list[tuple[str, tuple[str, ...]]]
    created: set[str]


def make_markers(folder: Path) -> Path:
    """The marker scripts, in `folder/bin`."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    for name in MARKERS:
        script = bin_dir / name
        script.write_text("#!/bin/sh\n" + _RECORD.format(name=name) + "\n")
        script.chmod(0o755)
    return bin_dir


def run_lines(lines: list[str], folder: Path, bin_dir: Path, timeout: float = 60) -> list[Ran]:
    """Run each line with `bash -c` in `folder/w<i>/cwd`; what each did."""
    functions = "".join(f"{name}() {{ local h9_trace; {_RECORD.format(name=name)}; }}\n"
                        for name in MARKERS)
    driver = [f"exec {_SYNC_FD}>&$H9_SYNC; exec {{H9_SYNC}}>&-; unset H9_SYNC\n", functions,
              f"export -f {' '.join(MARKERS)}\n"]
    for index, line in enumerate(lines):
        cwd = folder / f"w{index}" / "cwd"
        cwd.mkdir(parents=True)
        source = folder / f"line{index}"
        source.write_bytes(line.replace(BIN, str(bin_dir)).encode("utf-8", "surrogatepass"))
        # $(…) drops trailing newlines: the x keeps them, and is taken off again.
        driver.append(f"cd '{cwd}' && {{ s=$(cat '{source}'; printf x); "
                      f"bash -c \"${{s%x}}\"; }} </dev/null >/dev/null 2>&1\n")
    script = folder / "driver.sh"
    script.write_text("".join(driver))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(folder), "LC_ALL": "C.UTF-8"}
    _run(["bash", str(script)], env, timeout)
    return [_what_ran(folder / f"w{index}") for index in range(len(lines))]


def _run(argv: list[str], env: dict[str, str], timeout: float) -> None:
    """Run the driver and wait until every process it started has exited."""
    read_end, write_end = os.pipe()
    # The driver moves the pipe's end to a descriptor no line touches (lines use 0 to 4).
    env = {**env, "H9_SYNC": str(write_end)}
    try:
        process = subprocess.Popen(argv, env=env, pass_fds=(write_end,), start_new_session=True,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
    finally:
        os.close(write_end)
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the bash lines did not finish in time")
            ready, _, _ = select.select([read_end], [], [], left)
            if ready and not os.read(read_end, 4096):
                break
        process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(read_end)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _what_ran(home: Path) -> Ran:
    cwd = home / "cwd"
    calls: list[tuple[str, tuple[str, ...]]] = []
    for trace in sorted(cwd.glob(_TRACE + "*")) if cwd.is_dir() else ():
        fields = trace.read_bytes().decode("utf-8", "surrogateescape").split("\0")
        if len(fields) >= 2:
            count = int(fields[1])
            calls.append((fields[0], tuple(fields[2:2 + count])))
    created = {
        os.path.relpath(os.path.join(root, name), cwd)
        for root, _, names in os.walk(home) for name in names
        if not name.startswith(_TRACE)
    }
    return Ran(calls, created)
