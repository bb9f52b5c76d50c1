"""Secrets kept out of every error and log line the daemon writes.

A secret is the value of an environment variable whose name suggests one (`KEY`, `SECRET`,
`TOKEN` or `PASSWORD` in any letter case: the provider API keys among them), every key read
from elsewhere (`remember_secret`: the keys `harness9 login` stored, those a setting carries),
and the password of any URL (`https://user:pw@host`). A provider that echoes the key in its 401
message, or an HTTP library that logs a base URL with its password, shows `[redacted]` in
their place.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping

SECRET_MARKERS = ("KEY", "SECRET", "TOKEN", "PASSWORD")
MIN_SECRET = 8  # shorter values ("1", "true") would redact ordinary words
REDACTED = "[redacted]"
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)[^/\s@]+(?=@)")


def looks_secret(name: str) -> bool:
    """Whether the variable `name` contains one of `SECRET_MARKERS`, in any letter case."""
    upper = name.upper()
    return any(marker in upper for marker in SECRET_MARKERS)


def secrets_of(env: Mapping[str, str]) -> list[str]:
    """The secret values of an environment, longest first (a key that contains another is
    replaced whole)."""
    found = {v for name, v in env.items() if looks_secret(name) and len(v) >= MIN_SECRET}
    return sorted(found, key=len, reverse=True)


class _EnvironSecrets:
    """The secrets of the process's environment and the remembered ones, found again only
    when either changed: every log line is redacted, and decoding the whole environment for
    each would cost more than writing the line."""

    def __init__(self) -> None:
        self._seen: dict[bytes, bytes] | None = None
        self._secrets: list[str] = []
        self.remembered: frozenset[str] = frozenset()
        self._with: frozenset[str] = frozenset()  # the remembered ones `_secrets` holds

    def get(self) -> list[str]:
        """`secrets_of(os.environ)` as it is now, with the remembered secrets."""
        data = getattr(os.environ, "_data", None)  # CPython's raw mapping behind os.environ
        if not isinstance(data, dict):
            return _longest_first(secrets_of(os.environ), self.remembered)
        if data != self._seen or self._with is not self.remembered:
            self._with = self.remembered
            self._secrets = _longest_first(secrets_of(os.environ), self._with)
            self._seen = dict(data)
        return self._secrets


def _longest_first(found: list[str], remembered: frozenset[str]) -> list[str]:
    return sorted({*found, *remembered}, key=len, reverse=True)


_ENVIRON_SECRETS = _EnvironSecrets()


def remember_secret(value: str) -> None:
    """Redact `value` from now on, wherever it appears: a key the daemon read from somewhere
    other than its environment (a file, a setting), or one that may leave the environment."""
    value = value.strip()
    if len(value) >= MIN_SECRET and value not in _ENVIRON_SECRETS.remembered:
        # A new set, not an update: a reader on another thread keeps a consistent one.
        _ENVIRON_SECRETS.remembered = _ENVIRON_SECRETS.remembered | {value}


def redact(text: str, env: Mapping[str, str] | None = None) -> str:
    """`text` with every secret of `env` (default: the process's environment), every
    remembered secret and every URL password replaced by `[redacted]`."""
    secrets = (_ENVIRON_SECRETS.get() if env is None
               else _longest_first(secrets_of(env), _ENVIRON_SECRETS.remembered))
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "://" not in text:  # the pattern's scan costs more than this test, and most text fails it
        return text
    return _URL_PASSWORD.sub(lambda m: m.group("head") + REDACTED, text)


class RedactingFilter(logging.Filter):
    """A handler filter that redacts each record's whole message (arguments and traceback
    included) before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = redact(message), None
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
