"""A tiny language server for tests, speaking LSP over stdio with the standard library only.

It checks a file by its lines: a line containing `undefined_name` is an error (`fakels E1`).
At `initialize` it tries to write a file into the workspace, and its hover answers how that
went (`write: ok` or `write: denied (<reason>)`), with its process id. Extra command-line
arguments are ignored (a test marks its processes with one).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

_written = "not tried"


def _read(stream: Any) -> dict[str, Any] | None:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value.strip())
    return json.loads(stream.read(length))


def _send(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def _check(uri: str, version: int, text: str) -> None:
    found = []
    for number, line in enumerate(text.splitlines()):
        column = line.find("undefined_name")
        if column >= 0:
            found.append({"range": {"start": {"line": number, "character": column},
                                    "end": {"line": number, "character": column + 14}},
                          "severity": 1, "source": "fakels", "code": "E1",
                          "message": "undefined_name is not defined"})
    _send({"method": "textDocument/publishDiagnostics",
           "params": {"uri": uri, "version": version, "diagnostics": found}})


def _try_write(root_uri: str) -> str:
    target = Path(unquote(urlparse(root_uri).path)) / "written-by-server.txt"
    try:
        target.write_text("the language server wrote this\n")
    except OSError as exc:
        return f"denied ({exc.strerror})"
    return "ok"


def main() -> None:
    global _written
    stream = sys.stdin.buffer
    while (message := _read(stream)) is not None:
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            _written = _try_write(params.get("rootUri") or "")
            _send({"id": message["id"], "result": {"capabilities": {
                "textDocumentSync": 1, "hoverProvider": True}}})
        elif method == "textDocument/didOpen":
            item = params["textDocument"]
            _check(item["uri"], item["version"], item["text"])
        elif method == "textDocument/didChange":
            _check(params["textDocument"]["uri"], params["textDocument"]["version"],
                   params["contentChanges"][-1]["text"])
        elif method == "textDocument/hover":
            text = f"write: {_written}; pid {os.getpid()}"
            _send({"id": message["id"], "result": {"contents": text}})
        elif method == "shutdown":
            _send({"id": message["id"], "result": None})
        elif method == "exit":
            return
        elif "id" in message:
            _send({"id": message["id"], "error": {"code": -32601, "message": "no such method"}})


if __name__ == "__main__":
    main()
