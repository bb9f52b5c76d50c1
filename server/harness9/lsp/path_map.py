"""`pathMap`: the editor's paths and URIs on one side, the daemon's on the other.

An editor that starts the daemon on another machine or in a container (`ssh host harness9
serve`, `docker exec -i box harness9 serve`) sees the workspace under a path of its own. With
`pathMap: [{local, remote}]` (each a path or a URI prefix) every message is translated as it
crosses the wire: what the editor sends, from `local` to `remote` before the daemon reads it;
what the daemon sends, from `remote` to `local` after it wrote it. The transport calls
`to_daemon` on each decoded message and `frame_to_editor` on each outgoing frame, so no
handler knows of the mapping.

What is translated: the values of the fields that carry a URI or an absolute path (`uri`,
`rootUri`, `workspaceFolder`, `workspaceRoot`, `path`, …) wherever they occur, and the keys of
a `WorkspaceEdit`'s `changes`. Text (prompts, documents, tool output) is never touched.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from pygls.uris import from_fs_path, to_fs_path

_log = logging.getLogger(__name__)

# The fields whose string value is a URI or a path, in the LSP and in our protocol.
URI_FIELDS = frozenset({
    "uri", "targetUri", "oldUri", "newUri", "baseUri", "scopeUri", "rootUri", "rootPath",
    "workspaceFolder", "workspaceRoot", "path",
})
_CONTENT_TYPE = b"Content-Type: application/vscode-jsonrpc; charset=utf-8"


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a mapping: a file-system path prefix (`path`, for paths and `file:` URIs),
    or the prefix of URIs of another scheme (`uri`, with `path` None)."""

    path: str | None
    uri: str

    @classmethod
    def of(cls, text: str) -> Side:
        """The side `text` names: `/srv/proj`, `file:///srv/proj` or `scheme://host/proj`."""
        if text.startswith("file:"):
            text = to_fs_path(text) or text
        if "://" not in text:
            path = text.rstrip("/") or "/"
            return cls(path, (from_fs_path(path) or "file://" + path).rstrip("/"))
        return cls(None, text.rstrip("/"))


@dataclass(frozen=True, slots=True)
class Entry:
    """One `{local, remote}` pair of `pathMap`."""

    local: Side
    remote: Side


_entries: tuple[Entry, ...] = ()


def parse(value: Any) -> tuple[Entry, ...]:
    """`pathMap`'s entries; TypeError saying what is wrong."""
    expected = 'must be a list of {"local": path or URI, "remote": path or URI}'
    if not isinstance(value, list):
        raise TypeError(f"{expected}, got {type(value).__name__}")
    entries = []
    for item in value:
        if not isinstance(item, Mapping) or set(item) != {"local", "remote"} or not all(
                isinstance(item[k], str) and item[k] for k in ("local", "remote")):
            raise TypeError(f"{expected}, got {json.dumps(item)[:80]}")
        entries.append(Entry(Side.of(item["local"]), Side.of(item["remote"])))
    return tuple(entries)


def apply_setting(settings: Any) -> list[str]:
    """Take `pathMap` from client settings (an absent key changes nothing, null clears it);
    the problems, for the warning about invalid settings."""
    global _entries
    if not isinstance(settings, Mapping) or "pathMap" not in settings:
        return []
    if settings["pathMap"] is None:
        _entries = ()
        return []
    try:
        _entries = parse(settings["pathMap"])
    except TypeError as exc:
        return [f"pathMap: {exc}"]
    _log.info("pathMap: %s", ", ".join(f"{e.local.uri} = {e.remote.uri}" for e in _entries))
    return []


def active() -> bool:
    """Whether a mapping is set."""
    return bool(_entries)


def to_daemon(message: Any) -> Any:
    """A decoded message from the editor, with its URIs and paths on the daemon's side.
    `initialize` brings its own settings: its `pathMap` applies to its root and folders."""
    if isinstance(message, dict) and message.get("method") == "initialize":
        params = message.get("params")
        if isinstance(params, dict):
            apply_setting(params.get("initializationOptions"))
    if not _entries:
        return message
    return _walk(message, [(e.local, e.remote) for e in _entries])


def to_editor(message: Any) -> Any:
    """A message of the daemon's, with its URIs and paths on the editor's side."""
    if not _entries:
        return message
    return _walk(message, [(e.remote, e.local) for e in _entries])


def frame_to_editor(frame: bytes) -> bytes:
    """An outgoing frame (headers and body), translated; as it is when no mapping is set."""
    if not _entries:
        return frame
    _, sep, body = frame.partition(b"\r\n\r\n")
    if not sep:
        return frame
    try:
        message = json.loads(body)
    except ValueError:
        return frame
    new_body = json.dumps(to_editor(message)).encode()
    return b"Content-Length: %d\r\n%s\r\n\r\n" % (len(new_body), _CONTENT_TYPE) + new_body


Pairs = list[tuple[Side, Side]]


def _walk(value: Any, pairs: Pairs) -> Any:
    if isinstance(value, list):
        return [_walk(item, pairs) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key in URI_FIELDS and isinstance(item, str):
            result[key] = map_text(item, pairs)
        elif key == "changes" and isinstance(item, dict):  # a WorkspaceEdit: URI → edits
            result[key] = {map_text(uri, pairs): _walk(edits, pairs) for uri, edits in item.items()}
        else:
            result[key] = _walk(item, pairs)
    return result


def map_text(text: str, pairs: Pairs) -> str:
    """`text` (a URI or a path) moved from the first pair's source side that holds it to its
    target side; as it is when none holds it."""
    is_file_uri = text.startswith("file:")
    path = (to_fs_path(text) or "") if is_file_uri else text
    for source, target in pairs:
        if source.path is not None and (is_file_uri or "://" not in text):
            rest = _rest(path, source.path)
            if rest is None:
                continue
            if target.path is not None:
                mapped = target.path.rstrip("/") + rest if rest else target.path
                return (from_fs_path(mapped) or text) if is_file_uri else mapped
            return target.uri + quote(rest) if is_file_uri else text
        elif source.path is None and (rest := _rest(text, source.uri)) is not None:
            if target.path is not None:
                return from_fs_path(target.path.rstrip("/") + unquote(rest)) or text
            return target.uri + rest
    return text


def _rest(text: str, prefix: str) -> str | None:
    """What follows `prefix` in `text` ("" for `text` itself, "/…" beneath it), else None."""
    if text == prefix:
        return ""
    if prefix == "/" and text.startswith("/"):
        return text
    return text[len(prefix):] if text.startswith(prefix + "/") else None
