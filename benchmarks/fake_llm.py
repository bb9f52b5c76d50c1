"""The fake LLM in a process of its own, so it never competes for the client's interpreter.

`python -m benchmarks.fake_llm [--latency S]` serves `tests.fakellm.FakeLLM` with the scripted
answers of `benchmarks.script`, prints its base URL, then obeys lines on stdin: `stamps` prints
(as JSON) the send time of every streamed delta since the last `stamps`; `arrivals` prints the
arrival time of every request since the last `arrivals`; end of input stops it.
Send times are taken on the machine-wide monotonic clock right after each event is written.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from benchmarks.core import PYTHON, REPO

_DELTA = re.compile(rb'"(\d{5})\|"')


class _StampingWriter:
    """Wraps a handler's socket writer, logging when each streamed delta leaves."""

    def __init__(self, inner: Any, log: dict[int, float]) -> None:
        self._inner = inner
        self._log = log

    def write(self, data: bytes) -> int:
        written: int = self._inner.write(data)
        if b'|"' in data:
            match = _DELTA.search(data)
            if match:
                self._log[int(match.group(1))] = time.monotonic()
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _serve(latency: float) -> None:
    from benchmarks.script import respond
    from tests.fakellm import FakeLLM

    fake = FakeLLM(responder=respond, latency=latency)
    log: dict[int, float] = {}
    arrivals: list[float] = []
    base = fake._server.RequestHandlerClass

    class Stamping(base):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            super().setup()
            self.wfile: Any = _StampingWriter(self.wfile, log)

        def do_POST(self) -> None:
            arrivals.append(time.monotonic())
            super().do_POST()

    fake._server.RequestHandlerClass = Stamping
    with fake:
        print(fake.base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "stamps":
                print(json.dumps(sorted(log.items())), flush=True)
                log.clear()
            elif line.strip() == "arrivals":
                print(json.dumps(arrivals), flush=True)
                arrivals.clear()


class FakeProcess:
    """The running fake LLM subprocess."""

    def __init__(self, proc: asyncio.subprocess.Process, url: str) -> None:
        self.proc = proc
        self.url = url

    async def stamps(self) -> dict[int, float]:
        """Delta index → send time, for the deltas streamed since the last call."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(b"stamps\n")
        line = await self.proc.stdout.readline()
        return {int(k): float(t) for k, t in json.loads(line)}

    async def arrivals(self) -> list[float]:
        """When each request arrived, since the last call."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(b"arrivals\n")
        line = await self.proc.stdout.readline()
        return [float(t) for t in json.loads(line)]


@contextlib.asynccontextmanager
async def fake_llm(
    latency: float = 0.0, module: str = "benchmarks.fake_llm"
) -> AsyncIterator[FakeProcess]:
    """Start the fake LLM subprocess (or another server `module` that prints its URL and serves
    until its input closes); stop it on exit."""
    proc = await asyncio.create_subprocess_exec(
        PYTHON, "-m", module, "--latency", str(latency),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=REPO,
        limit=1 << 24,
    )
    try:
        assert proc.stdout is not None
        url = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip()
        if not url:
            raise RuntimeError("the fake LLM did not start")
        yield FakeProcess(proc, url)
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def main() -> None:
    """Serve until stdin closes."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fake_llm")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    _serve(parser.parse_args().latency)


if __name__ == "__main__":
    main()
