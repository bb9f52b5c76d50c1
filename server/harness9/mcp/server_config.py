"""The `mcpServers` setting:
`{"name": {"command", "args", "env", "enabled", "toolTimeoutMs", "sandbox"}}` for a server the
daemon starts (stdio), or `{"name": {"type": "http" | "sse", "url", "headers", "enabled",
"toolTimeoutMs"}}` for one it reaches over HTTP (streamable HTTP, or the older SSE transport).

Validation only; nothing here loads the MCP SDK (the daemon's settings import it at start-up).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness9.process.sandbox import SandboxMode, SandboxPolicy, resolve_roots
from harness9.redaction import looks_secret, remember_secret

_log = logging.getLogger(__name__)
_KEYS = ("command", "args", "env", "enabled", "toolTimeoutMs", "sandbox")
_HTTP_KEYS = ("type", "url", "headers", "enabled", "toolTimeoutMs")
TRANSPORTS = ("stdio", "http", "sse")


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One configured server. Equal configs describe the same server process."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    enabled: bool = True
    tool_timeout_ms: int | None = None  # None: the run's toolTimeoutMs alone bounds a call
    # In the OS sandbox (bubblewrap): it reads everything, writes only its temporary folder and
    # `writable_roots`, and reaches the network only with `network`. None: unsandboxed.
    sandbox: SandboxPolicy | None = None
    transport: str = "stdio"  # stdio (`command`), or http / sse (`url`, `headers`)
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def remote(self) -> bool:
        """Whether the server is reached over HTTP (not started by the daemon)."""
        return self.transport != "stdio"


def parse_mcp_servers(value: Any) -> tuple[McpServerConfig, ...]:
    """The servers of an `mcpServers` value, in its order; `TypeError` naming the bad part."""
    if not isinstance(value, Mapping):
        raise TypeError(f'must be an object {{"name": {{"command": …}}}}, got {value!r}')
    return tuple(_server(str(name), entry) for name, entry in value.items())


def _server(name: str, entry: Any) -> McpServerConfig:
    if not name:
        raise TypeError("a server name must not be empty")
    if not isinstance(entry, Mapping):
        raise TypeError(f"{name} must be an object with a command, got {entry!r}")
    if entry.get("type", "stdio") != "stdio" or "url" in entry:
        return _remote(name, entry)
    unknown = sorted(str(key) for key in entry if key not in (*_KEYS, "type"))
    if unknown:
        raise TypeError(f"{name}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise TypeError(f"{name}.command must be a non-empty string, got {command!r}")
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise TypeError(f"{name}.args must be a list of strings, got {args!r}")
    env = entry.get("env") or {}
    if not isinstance(env, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise TypeError(f"{name}.env must be an object of strings, got {env!r}")
    _remember_secrets(env)
    enabled, timeout = _switches(name, entry)
    return McpServerConfig(
        name, command, tuple(args), tuple(sorted(env.items())), enabled, timeout,
        _sandbox(name, entry.get("sandbox", False)),
    )


def _switches(name: str, entry: Mapping[str, Any]) -> tuple[bool, int | None]:
    """`enabled` (default true) and `toolTimeoutMs` (default none) of any server."""
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise TypeError(f"{name}.enabled must be true or false, got {enabled!r}")
    timeout = entry.get("toolTimeoutMs")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
    ):
        raise TypeError(f"{name}.toolTimeoutMs must be an integer ≥ 1, got {timeout!r}")
    return enabled, timeout


def _remote(name: str, entry: Mapping[str, Any]) -> McpServerConfig:
    """A server reached over HTTP: `type` http (the default with a `url`) or sse."""
    unknown = sorted(str(key) for key in entry if key not in _HTTP_KEYS)
    if unknown:
        raise TypeError(f"{name}: unknown key {unknown[0]!r} for an http server (known: "
                        f"{', '.join(_HTTP_KEYS)})")
    transport = entry.get("type", "http")
    if transport not in TRANSPORTS[1:]:
        raise TypeError(f"{name}.type must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    url = entry.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise TypeError(f"{name}.url must be an http:// or https:// URL, got {url!r}")
    headers = entry.get("headers") or {}
    if not isinstance(headers, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise TypeError(f"{name}.headers must be an object of strings, got {headers!r}")
    _remember_secrets(headers)
    enabled, timeout = _switches(name, entry)
    return McpServerConfig(name, "", enabled=enabled, tool_timeout_ms=timeout,
                           transport=str(transport), url=url,
                           headers=tuple(sorted(headers.items())))


def _remember_secrets(pairs: Mapping[str, str]) -> None:
    """A setting is one more source of keys: values under names that suggest one (and
    authorization headers, with their credentials alone) are redacted from now on."""
    for key, value in pairs.items():
        if looks_secret(key) or key.lower() in ("authorization", "proxy-authorization"):
            remember_secret(value)
            remember_secret(value.split()[-1] if value.split() else value)


def _sandbox(name: str, value: Any) -> SandboxPolicy | None:
    """`sandbox`: false (the default), true, or `{"network": bool, "writableRoots": [path]}`."""
    if value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, Mapping) or set(value) - {"network", "writableRoots"}:
        raise TypeError(f'{name}.sandbox must be true, false or {{"network": …, '
                        f'"writableRoots": […]}}, got {value!r}')
    network = value.get("network", False)
    roots = value.get("writableRoots") or []
    if not isinstance(network, bool):
        raise TypeError(f"{name}.sandbox.network must be true or false, got {network!r}")
    if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
        raise TypeError(f"{name}.sandbox.writableRoots must be a list of paths, got {roots!r}")
    resolved, warnings = resolve_roots(tuple(roots))
    for warning in warnings:
        _log.warning("%s: %s", name, warning)
    return SandboxPolicy(SandboxMode.READ_ONLY, network, resolved)
