"""A small MCP server for the edge cases of harness9's MCP client, built with the SDK's
`MCPServer`; run as `python tests/mcp/edge_server.py [MODE]` (stdio).

MODE `fail-start` writes a line to stderr and exits 1 before speaking MCP; `http PORT` (or
`sse PORT`) serves streamable HTTP at `http://127.0.0.1:PORT/mcp` (SSE at `/sse`), refusing any
request without the header `Authorization: Bearer edge-token`. With the environment
variable `EDGE_PID_FILE` set, the server appends its pid to that file when it starts; with
`EDGE_LINGER` set, it stays alive after its stdin closes (as a careless server would), so only
its client's kill ends it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("edge")


@server.tool()
def echo(text: str) -> str:
    """Return `text` unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def fail(reason: str) -> str:
    """Always fail with `reason`."""
    raise ToolError(reason)


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then say so."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def big(size: int) -> str:
    """Return `size` bytes of text."""
    return "x" * size


@server.tool()
def crash() -> str:
    """Kill this server in the middle of the call."""
    os._exit(3)


@server.tool()
def picture() -> Image:
    """A 1x1 PNG image."""
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
    return Image(data=png, format="png")


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable of the server ("(unset)" when it has none)."""
    return os.environ.get(name, "(unset)")


@server.tool()
def write(path: str, text: str) -> str:
    """Write `text` to the file at `path` (absolute)."""
    with open(path, "w") as handle:
        handle.write(text)
    return f"wrote {path}"


def serve_http(mode: str, port: int) -> None:
    """Serve over HTTP on the loopback, for requests that carry the edge token only."""
    import uvicorn
    from starlette.middleware.base import BaseHTTPMiddleware
    from starlette.responses import PlainTextResponse

    async def check_token(request: Any, call_next: Any) -> Any:
        if request.headers.get("authorization") != "Bearer edge-token":
            return PlainTextResponse("missing or wrong token", status_code=401)
        return await call_next(request)

    app = server.streamable_http_app() if mode == "http" else server.sse_app()
    app.add_middleware(BaseHTTPMiddleware, dispatch=check_token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode in ("http", "sse"):
        serve_http(mode, int(sys.argv[2]))
        return
    if mode == "fail-start":
        print("edge: cannot open the database at /nonexistent/db", file=sys.stderr, flush=True)
        sys.exit(1)
    pid_file = os.environ.get("EDGE_PID_FILE")
    if pid_file:
        with open(pid_file, "a") as handle:
            handle.write(f"{os.getpid()}\n")
    server.run("stdio")
    if os.environ.get("EDGE_LINGER"):
        time.sleep(3600)


if __name__ == "__main__":
    main()
