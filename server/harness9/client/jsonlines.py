"""`harness9 run --json`: each `agent/progress` notification as one JSON line, the answer last."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from harness9.client.outcome import Outcome


class JsonLinesView:
    """Writes raw notifications to stdout for scripts; human notes go to stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out = out or sys.stdout
        self._err = err or sys.stderr
        self._closed = False

    def _line(self, value: dict[str, Any]) -> None:
        if self._closed:
            return
        try:
            self._out.write(json.dumps(value, ensure_ascii=False) + "\n")
            self._out.flush()
        except BrokenPipeError:
            # The reader is gone (`| head`): drop the rest, and keep the interpreter's final
            # flush of stdout from failing too.
            self._closed = True
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._out.fileno())

    def progress(self, params: dict[str, Any]) -> None:
        """One notification, one line."""
        self._line(params)

    def log(self, message: str) -> None:
        """Daemon messages are not part of the JSON stream."""

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Nothing to step aside from: JSON lines never ask."""
        yield

    def cancelling(self) -> None:
        """Nothing to show: the `cancelled` answer will be the last line."""

    def show(self, note: Any) -> None:
        """Notes are for people: on stderr, as plain text."""
        plain = getattr(note, "plain", None)
        self._err.write(f"{plain if isinstance(plain, str) else note}\n")
        self._err.flush()

    def finished(self, outcome: Outcome, notes: list[tuple[str, Path]]) -> None:
        """The last line: `{"result": …}` or `{"error": …}`, then the notes on stderr."""
        if outcome.error is not None:
            self._line({"error": outcome.error})
        else:
            self._line({"result": outcome.result})
        for label, path in notes:
            self._err.write(f"{label}: {path}\n")
