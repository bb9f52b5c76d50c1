"""Provider failures, classified once at the provider boundary.

    ProviderError                 every failure of a model call; `.kind` is the wire `data.kind`
    ├── ConfigError       config  missing key / base URL / unknown provider, before any request
    ├── AuthError         auth    401/403 from the service
    ├── RateLimitError    rate_limit  429 after the SDK's retries
    ├── HTTPStatusError   http    any other status after retries; `.status` holds the code
    │   ├── ContextTooLongError  http  the request is larger than the model's context window
    │   └── ModelNotFoundError   http  404 naming the model: the service does not offer it
    ├── NetworkError      network connection refused/reset/dropped mid-stream, timeouts
    └── MalformedResponseError  malformed  a reply that does not fit the wire format
"""

from __future__ import annotations

from harness9.redaction import redact


class ProviderError(Exception):
    """Base class; `kind` names the class on the wire, `status` the HTTP code when there is one."""

    kind = "internal"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        message = redact(message)  # a service may echo the key it was sent
        super().__init__(message)
        self.message = message
        self.status = status


class ConfigError(ProviderError):
    """The provider cannot be built: a variable or setting is missing or wrong."""

    kind = "config"


class AuthError(ProviderError):
    """The service refused the credentials."""

    kind = "auth"


class RateLimitError(ProviderError):
    """The service kept answering 429."""

    kind = "rate_limit"


class HTTPStatusError(ProviderError):
    """Any other non-success HTTP status."""

    kind = "http"


class ContextTooLongError(HTTPStatusError):
    """The service refused the request for being longer than the model's context window
    (the engine compacts and retries once)."""


class ModelNotFoundError(HTTPStatusError):
    """The service does not offer the model asked for (the provider adds what it offers);
    `model` names it once known."""

    def __init__(self, message: str, *, status: int | None = None, model: str | None = None
                 ) -> None:
        super().__init__(message, status=status)
        self.model = model


class NetworkError(ProviderError):
    """The connection failed, timed out or dropped mid-stream."""

    kind = "network"


class MalformedResponseError(ProviderError):
    """The service answered something that is not its documented wire format."""

    kind = "malformed"
