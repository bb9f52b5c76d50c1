"""The daemon's stdio transport: a framing reader thread, and a writer that never blocks the loop.

pygls' own stdio loop reads headers with an unbounded `readline` and writes each frame from the
event loop; a client that stops reading then freezes every run, timeout and cancel. Here a
thread reads and frames the client's bytes (`framing`), the loop only decodes and dispatches
bodies, and `FrameWriter` (`frame_writer`) queues outgoing frames for a thread of its own.
Producers of messages that can be merged (text deltas, `$/progress` reports) ask
`output_congested()` and hold them while the client lags; everything else waits in the queue,
in order.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import JsonRPCProtocol

from harness9.lsp import path_map
from harness9.lsp.frame_writer import FrameWriter
from harness9.lsp.framing import BodyError, FrameError, FrameParser, decode_body
from harness9.process.process_end import when_process_ends

_log = logging.getLogger(__name__)

EXIT_FLUSH_SECONDS = 2.0  # what a closing daemon waits for a lagging client to take its output
_READ_CHUNK = 64 * 1024
_BODIES_IN_FLIGHT = 2  # bodies read ahead of the loop: what a flooding client can make us hold

ErrorHandler = Callable[[Exception, Any], Any]


_current: FrameWriter | None = None


def send_notification(protocol: JsonRPCProtocol, method: str, params: dict[str, Any]) -> None:
    """Send a notification whose params are plain JSON data, framed as pygls frames its own,
    without pygls' conversion of every field (`agent/progress` goes out several times a turn,
    and that conversion cost more than the rest of sending it). In order with what pygls sends:
    both go through the same writer."""
    writer = protocol.writer
    if not isinstance(writer, FrameWriter):  # not serving stdio (a test's own transport)
        protocol.notify(method, params)
        return
    body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode()
    writer.write(b"Content-Length: %d\r\n%s\r\n\r\n" % (len(body), _CONTENT_TYPE) + body)


_CONTENT_TYPE = b"Content-Type: application/vscode-jsonrpc; charset=utf-8"


def output_congested() -> bool:
    """Whether the daemon's client is lagging behind its output (False when none is serving)."""
    return _current is not None and _current.congested


class _EndOfInput:
    """The client closed stdin."""


class _LostClient:
    """Writing to the client failed."""


class _EditorGone:
    """The editor's process ended (while stdin may stay open)."""

    def __init__(self, pid: int, who: str) -> None:
        self.pid, self.who = pid, who


_Item = bytes | FrameError | _EndOfInput | _LostClient | _EditorGone


class _Inbox:
    """Hands items from the reader thread to the loop; the thread waits while bodies pile up."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._slots = threading.Semaphore(_BODIES_IN_FLIGHT)

    def put_from_thread(self, item: _Item, wait: bool = True) -> bool:
        """Queue `item` for the loop; False when the loop is gone."""
        if wait:
            self._slots.acquire()
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:
            return False
        return True

    def put(self, item: _Item) -> None:
        """Queue `item` from the loop itself, without taking a body's slot."""
        self._queue.put_nowait(item)

    async def get(self) -> _Item:
        item = await self._queue.get()
        if not isinstance(item, _LostClient | _EditorGone):
            self._slots.release()
        return item


# While serving: the inbox, and what stops each watch of a process the daemon ends with.
_watches: tuple[_Inbox, list[Callable[[], None]]] | None = None


def _read_frames(fd: int, inbox: _Inbox) -> None:
    """The reader thread: raw bytes → bodies, until end of input or a broken frame."""
    parser = FrameParser()
    while True:
        try:
            data = os.read(fd, _READ_CHUNK)
        except OSError as exc:
            _log.error("reading stdin failed: %s", exc)
            data = b""
        if not data:
            inbox.put_from_thread(_EndOfInput())
            return
        for item in parser.feed(data):
            if not inbox.put_from_thread(item) or isinstance(item, FrameError):
                return


def end_with_process(pid: int, who: str) -> None:
    """Stop serving (exit code 0, as when stdin closes) once process `pid` has ended; `who`
    names it in the log. Outside `serve_stdio`, nothing."""
    if _watches is None:
        return
    inbox, stops = _watches
    loop = asyncio.get_running_loop()
    stops.append(when_process_ends(loop, pid, lambda: inbox.put(_EditorGone(pid, who))))


def dispatch(protocol: JsonRPCProtocol, body: bytes, on_error: ErrorHandler) -> None:
    """Decode one body and hand it to pygls; unreadable ones go to `on_error` to be answered.

    `SystemExit` (pygls raises it for `exit`) passes through.
    """
    try:
        # Decoded whole, then translated (`pathMap`), then structured as pygls' types.
        data = path_map.to_daemon(decode_body(body))
        message = protocol.structure_message(data) if isinstance(data, dict) else data
        if isinstance(message, dict | list | str | int | float | bool) or message is None:
            raise JsonRpcInvalidRequest(message="not a JSON-RPC 2.0 message object")
        protocol.handle_message(message)
    except (BodyError, JsonRpcException) as exc:
        _log.warning("unreadable message: %s", exc)
        on_error(exc, JsonRpcException)
    except Exception as exc:
        _log.exception("failed to handle a message")
        on_error(exc, JsonRpcException)


async def _serve(protocol: JsonRPCProtocol, in_fd: int, writer: FrameWriter,
                 on_error: ErrorHandler, parent: int | None) -> int:
    """Dispatch bodies until the client exits or the connection ends; the exit code."""
    inbox = _Inbox(asyncio.get_running_loop())

    def lost() -> None:
        inbox.put_from_thread(_LostClient(), wait=False)

    writer.on_lost = lost
    reader = threading.Thread(
        target=_read_frames, args=(in_fd, inbox), name="harness9-reader", daemon=True
    )
    reader.start()
    global _watches
    stops: list[Callable[[], None]] = []
    _watches = (inbox, stops)
    if parent is not None:
        end_with_process(parent, "the process that started the daemon")
    try:
        return await _dispatch_until_the_end(protocol, inbox, on_error)
    finally:
        for stop in stops:
            stop()
        _watches = None


async def _dispatch_until_the_end(protocol: JsonRPCProtocol, inbox: _Inbox,
                                  on_error: ErrorHandler) -> int:
    """Dispatch what the inbox gets until something ends the connection; the exit code."""
    while True:
        item = await inbox.get()
        if isinstance(item, _EndOfInput):
            return 0
        if isinstance(item, _EditorGone):
            _log.info("%s (pid %d) has ended: the daemon stops", item.who, item.pid)
            return 0
        if isinstance(item, FrameError):
            _log.error("bad frame from the client, closing the connection: %s", item)
            return 1
        if isinstance(item, _LostClient):
            return 1
        try:
            dispatch(protocol, item, on_error)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 1


def serve_stdio(protocol: JsonRPCProtocol, in_fd: int, out_fd: int,
                on_error: ErrorHandler, parent: int | None = None) -> int:
    """Serve one client on these descriptors until it leaves or process `parent` (the one that
    started the daemon) ends; returns the process exit code.

    When the loop ends, pending runs are cancelled (their tool processes killed) and the output
    still queued gets `EXIT_FLUSH_SECONDS` to reach a client that may have stopped reading.
    """
    global _current
    writer = FrameWriter(out_fd, rewrite=path_map.frame_to_editor)
    protocol.set_writer(writer)
    _current = writer
    try:
        code = asyncio.run(_serve(protocol, in_fd, writer, on_error, parent))
    finally:
        _current = None
        writer.close()
        if not writer.drain(EXIT_FLUSH_SECONDS):
            _log.warning("the client took not all output before the exit")
    return code
