"""Case: files open in the editor — an edit through the editor vs through the disk, and
read_file from a synced 20,000-line document.

One daemon, one client that syncs a 20,000-line document and answers `workspace/applyEdit` as
an editor does (it applies the edits to its buffer and reports them back with `didChange`).
Each round runs the same scripted turns twice on the same file: once with the document open
(edits go through the editor, reads come from the buffer), once with it closed (the disk). The
figures are the tools' own `durationMs`; the disk is the floor. Rounds alternate the order.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.core import Config, Row, interleave, limit_row, median, ratio_row
from benchmarks.daemon import CHECKPOINTS_OFF, Daemon, llm_env, started, workspace

LINES = 20_000
EDIT_RATIO = 3.0  # an edit through the editor may cost this many disk edits
READ_LIMIT_MS = 2.0
CAPABILITIES = {"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}}
FILE = "big.py"


class BufferEditor:
    """The client's buffer of one document: applies edits line-wise, as an editor does (not
    re-reading the whole text), and tells the daemon about each change."""

    def __init__(self, daemon: Daemon, path: Path, text: str) -> None:
        self.daemon = daemon
        self.uri = path.as_uri()
        self.lines = text.split("\n")
        self.version = 0
        self.open = False

    def sync_open(self) -> None:
        self.version += 1
        item = {"uri": self.uri, "languageId": "python", "version": self.version,
                "text": "\n".join(self.lines)}
        self.daemon.client.notify("textDocument/didOpen", {"textDocument": item})
        self.open = True

    def sync_close(self) -> None:
        self.daemon.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        self.open = False

    def answer(self, method: str, params: Any) -> Any:
        """The client's answer to a server request."""
        if method != "workspace/applyEdit":
            return None
        (change,) = params["edit"]["documentChanges"]
        if change["textDocument"]["version"] != self.version:
            return {"applied": False, "failureReason": "version moved"}
        edits = sorted(change["edits"], key=lambda e: (e["range"]["start"]["line"],
                                                       e["range"]["start"]["character"]))
        for edit in reversed(edits):
            self._replace(edit["range"], edit["newText"])
        self.version += 1
        self.daemon.client.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"range": e["range"], "text": e["newText"]} for e in edits[::-1]],
        })
        return {"applied": True}

    def _replace(self, where: dict[str, Any], text: str) -> None:
        start, end = where["start"], where["end"]
        head = self.lines[start["line"]][: start["character"]]
        tail = self.lines[end["line"]][end["character"] :]
        self.lines[start["line"] : end["line"] + 1] = (head + text + tail).split("\n")


def _script(folder: Path, edits: int) -> Path:
    """Turns of one edit_file each (a line toggled back and forth), then as many read_files."""
    turns: list[dict[str, Any]] = []
    for i in range(edits):
        before, after = ("= 10000", "= -10000") if i % 2 == 0 else ("= -10000", "= 10000")
        source = f"line_10000 {before}\n"
        target = f"line_10000 {after}\n"
        turns.append({"tool_calls": [{"name": "edit_file", "arguments": {
            "path": FILE, "source_text": source, "target_text": target}}]})
    for i in range(edits):
        offset = (i * 4096 * 37) % (LINES * 16)
        turns.append({"tool_calls": [{"name": "read_file",
                                      "arguments": {"path": FILE, "offset": offset}}]})
    turns.append({"text": "done"})
    path = folder / "editor_files.json"
    path.write_text(json.dumps({"turns": turns}))
    return path


async def _durations(daemon: Daemon, script: Path, via: str) -> dict[str, float]:
    """The median durationMs of the run's edits and reads; checks where the edits went."""
    outcome = await daemon.run("edit and read", replayFile=str(script), maxTurns=100)
    done = [n.params for n in outcome.progress("tool_completed")]
    edits = [n for n in done if n["tool"] == "edit_file"]
    reads = [n for n in done if n["tool"] == "read_file"]
    if not edits or not reads or any(n["via"] != via for n in edits):
        raise RuntimeError(f"expected every edit via {via}: {outcome.result} {done[:2]}")
    return {"edit": median([n["durationMs"] for n in edits]),
            "read": median([n["durationMs"] for n in reads])}


async def run(config: Config) -> list[Row]:
    """Median edit and read times, document open vs closed, over `config.reps` rounds."""
    edits = config.size(20, 4)
    content = "".join(f"line_{i} = {i}\n" for i in range(LINES))
    results: dict[str, list[dict[str, float]]] = {"editor": [], "disk": []}
    with workspace() as root, tempfile.TemporaryDirectory() as tmp:
        (root / FILE).write_text(content)
        script = _script(Path(tmp), edits)
        settings = {"provider": "replay", **CHECKPOINTS_OFF}
        async with started(llm_env(os.environ, None), root, settings=settings,
                           capabilities=CAPABILITIES) as daemon:
            editor = BufferEditor(daemon, root / FILE, content)
            daemon.client.on_request = editor.answer

            async def through_editor() -> float:
                editor.sync_open()
                results["editor"].append(await _durations(daemon, script, "editor"))
                editor.sync_close()
                return 0.0

            async def through_disk() -> float:
                results["disk"].append(await _durations(daemon, script, "disk"))
                return 0.0

            await interleave(config.reps, through_editor, through_disk)
    edit_editor = median([r["edit"] for r in results["editor"]])
    edit_disk = median([r["edit"] for r in results["disk"]])
    read_editor = median([r["read"] for r in results["editor"]])
    read_disk = median([r["read"] for r in results["disk"]])
    return [
        ratio_row(f"edit_file through the editor ({LINES:,}-line file)", edit_editor, edit_disk,
                  "ms/edit", EDIT_RATIO),
        limit_row(f"read_file from a synced {LINES:,}-line document", read_editor, read_disk,
                  "ms/read", READ_LIMIT_MS),
    ]
