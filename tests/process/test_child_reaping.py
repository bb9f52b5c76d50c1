"""The daemons wait for their child processes on the event loop, not one thread each."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(30)

_PROGRAM = """
import asyncio, threading
from harness9.process.stdio_channel import reap_children_without_threads

async def main():
    process = await asyncio.create_subprocess_exec("sleep", "0.2")
    waiting = [t.name for t in threading.enumerate() if "waitpid" in t.name]
    code = await process.wait()
    return code, waiting

import sys
watch = sys.argv[1] == "1"
if watch:
    reap_children_without_threads()
print(asyncio.run(main()))
"""


def _run(watch: bool) -> str:
    done = subprocess.run([sys.executable, "-c", _PROGRAM, "1" if watch else "0"],
                          capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 waits through pidfds already")
def test_a_child_is_waited_for_without_a_thread_of_its_own() -> None:
    # What Python 3.11 does by default: a thread a child.
    assert _run(watch=False).startswith("(0, ['asyncio-waitpid-")
    assert _run(watch=True) == "(0, [])"
