"""Lazy SDK loading and the one place SDK and HTTP-library exceptions become provider errors.

The SDKs cost hundreds of milliseconds to import, so nothing imports them at module level: the
first call that needs one imports it in a worker thread (the event loop keeps serving) and caches
it. Both SDKs share one exception layout (`APIStatusError` and its subclasses,
`APIConnectionError`, `APITimeoutError`, `APIResponseValidationError`); a connection dropped in
the middle of a stream escapes them as the HTTP library's own `httpx2` exception. Clients carry the
run's `RequestLimits` (`harness9.provider.limits`) as their HTTP timeout.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import sys
import weakref
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from types import ModuleType
from typing import Any

from harness9.provider import collector, tls
from harness9.provider.endpoints import auth_advice, model_advice, network_advice, path_advice
from harness9.provider.limits import RequestLimits, connect_message
from harness9.provider.provider_errors import (
    AuthError,
    ContextTooLongError,
    HTTPStatusError,
    MalformedResponseError,
    ModelNotFoundError,
    NetworkError,
    ProviderError,
    RateLimitError,
)
from harness9.schema import Message, StreamChunk, ToolDefinition, Usage

_loaded: dict[str, ModuleType] = {}

# How the services say a request does not fit the model's window: OpenAI's error code and
# message, Anthropic's "prompt is too long", and the wording of compatible servers.
_TOO_LONG = re.compile(
    r"context_length_exceeded|maximum context length|prompt is too long|context window"
    r"|too many tokens|input is too long|request too large",
    re.IGNORECASE,
)
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, Any]] = (
    weakref.WeakKeyDictionary()
)

# An error event inside a stream arrives after a 200 status; its type names the HTTP status the
# same failure would have had before the stream started.
_STREAM_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "rate_limit_error": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
}


async def load_sdk(name: str) -> ModuleType:
    """Import module `name` once, off the event loop, and cache it. The import holds off the
    garbage collector's full collections and sets what it loaded apart from them (`collector`):
    an SDK not imported while warming up (another provider's, chosen later) would otherwise
    stall the event loop with full collections during its import and after."""
    module = _loaded.get(name)
    if module is None:
        # Not `sys.modules`: while another run's import is under way it holds a half-initialised
        # module; import_module waits for that import to finish instead.
        with collector.held():
            module = await asyncio.to_thread(importlib.import_module, name)
        _loaded[name] = module
    return module


async def shared_client(
    module: str, factory: str, options: Mapping[str, Any], limits: RequestLimits
) -> tuple[ModuleType, Any]:
    """The SDK module and a client built by `module.factory(**options)` with the HTTP timeout of
    `limits`, shared per event loop.

    Building a client costs tens of milliseconds of CPU (mostly its TLS context, shared by all
    of them: see `tls`), so the runs of a daemon share one per configuration instead of paying
    it on every run; the key includes the event loop because a client's connection pool belongs
    to the loop that opened it.
    """
    sdk = await load_sdk(module)
    clients = _clients.setdefault(asyncio.get_running_loop(), {})
    key = (module, factory, tuple(sorted(options.items())), limits)
    verify = await tls.context() if key not in clients else None
    client = clients.get(key)
    if client is None:
        timeout = limits.http_timeout(sdk)
        http = {} if verify is None else {
            "http_client": tls.http(sdk, options["base_url"], timeout, verify)}
        client = clients[key] = getattr(sdk, factory)(**options, timeout=timeout, **http)
    return sdk, client


@contextmanager
def translated_errors(
    sdk: ModuleType, provider: str, limits: RequestLimits, base_url: str | None = None
) -> Iterator[None]:
    """Re-raise any SDK / HTTP-library failure inside the block as a `ProviderError`, saying
    what to change where the failure names it (the key, the base URL, the network)."""
    try:
        yield
    except ProviderError:
        raise
    except Exception as exc:
        error = translate(exc, sdk, provider, limits, base_url)
        if error is None:
            raise
        raise error from exc


def translate(
    exc: Exception, sdk: ModuleType, provider: str, limits: RequestLimits,
    base_url: str | None = None,
) -> ProviderError | None:
    """The provider error for `exc`, or None when it is not a model-call failure."""
    httpx = sys.modules.get("httpx2")
    if isinstance(exc, sdk.APIStatusError) and int(getattr(exc, "status_code", 0)) >= 400:
        return _status_error(exc, provider, base_url)
    if isinstance(exc, sdk.APITimeoutError):
        if httpx is not None and isinstance(exc.__cause__, httpx.ConnectTimeout):
            return NetworkError(connect_message(provider, limits)
                                + network_advice(provider, base_url))
        return NetworkError(f"{provider}: the request timed out")
    if isinstance(exc, sdk.APIConnectionError):
        return NetworkError(f"{provider}: cannot reach the service: {_cause(exc)}"
                            + network_advice(provider, base_url))
    if isinstance(exc, sdk.APIResponseValidationError):
        return MalformedResponseError(f"{provider}: malformed response: {exc}")
    if isinstance(exc, sdk.APIError):
        return _stream_error(exc, provider)
    if httpx is not None and isinstance(exc, httpx.TimeoutException):
        return NetworkError(f"{provider}: the response timed out: {exc}")
    if httpx is not None and isinstance(exc, httpx.TransportError):
        return NetworkError(f"{provider}: the connection failed mid-response: {exc}")
    if isinstance(exc, ValueError):  # an SSE event or body that is not JSON
        return MalformedResponseError(f"{provider}: malformed response: {exc}")
    return None


def _status_error(exc: Exception, provider: str, base_url: str | None) -> ProviderError:
    status = int(getattr(exc, "status_code", 0))
    detail = getattr(exc, "message", str(exc))
    text = f"{provider}: HTTP {status}: {detail}"
    if status in (401, 403):
        text += auth_advice(provider, base_url)
    elif status == 404 and "model" in str(detail).lower():
        return ModelNotFoundError(text, status=status)
    elif status == 404:
        text += path_advice(provider, base_url)
    return _classified(text, status)


def _stream_error(exc: Exception, provider: str) -> ProviderError:
    """An error event the service sent inside a stream that had started with 200."""
    body = getattr(exc, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    error = inner if isinstance(inner, dict) else body
    kind = error.get("type") if isinstance(error, dict) else None
    status = _STREAM_ERROR_STATUS.get(str(kind), 500)
    detail = getattr(exc, "message", str(exc))
    return _classified(f"{provider}: error in the stream ({kind or 'unknown'}): {detail}", status)


def _classified(text: str, status: int) -> ProviderError:
    """The error class for an HTTP status: auth, rate limit, or any other status."""
    if status in (401, 403):
        return AuthError(text, status=status)
    if status == 429:
        return RateLimitError(text, status=status)
    if status in (400, 413) and _TOO_LONG.search(text):
        return ContextTooLongError(text, status=status)
    return HTTPStatusError(text, status=status)


def _cause(exc: BaseException) -> str:
    """The lowest-level reason of a connection error (the SDK's own text is generic)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc) or type(exc).__name__


@asynccontextmanager
async def model_advised(lister: Any) -> AsyncIterator[None]:
    """A `ModelNotFoundError` inside the block names a few models the service does offer
    (from `lister.list_models()`; left out when that fails too)."""
    try:
        yield
    except ModelNotFoundError as exc:
        try:
            offered = [m.id for m in await lister.list_models()]
        except ProviderError:
            offered = []
        raise ModelNotFoundError(exc.message + model_advice(lister.model, offered),
                                 status=exc.status, model=lister.model) from exc


class AdvisedCalls:
    """`generate` and `generate_stream` of an SDK adapter, around its own `_generate` and
    `_generate_stream`: a model the service does not offer is named with a few it does."""

    model: str

    async def list_models(self) -> list[Any]:
        """The service's models (the adapter's own)."""
        raise NotImplementedError

    async def _generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        raise NotImplementedError

    def _generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        raise NotImplementedError

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> tuple[Message, Usage]:
        """One call, answered whole."""
        async with model_advised(self):
            return await self._generate(messages, tools)

    async def generate_stream(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamChunk]:
        """One streamed call: text as it arrives, then the whole message."""
        async with model_advised(self):
            async for chunk in self._generate_stream(messages, tools):
                yield chunk
