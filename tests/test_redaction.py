"""Secrets never reach an error or a log line: environment secrets and URL passwords."""

from __future__ import annotations

import logging
import sys

import pytest

from harness9.mcp.server_config import parse_mcp_servers
from harness9.redaction import REDACTED, RedactingFilter, redact, remember_secret

ENV = {"OPENAI_API_KEY": "sk-live-0123456789", "db_password": "hunter2hunter2",
       "SHORT_TOKEN": "1", "PATH": "/usr/bin:/bin"}


@pytest.mark.parametrize(("text", "shown"), [
    ("key sk-live-0123456789 refused", f"key {REDACTED} refused"),
    ("POST https://me:hunter2hunter2@api.example/v1", f"POST https://me:{REDACTED}@api.example/v1"),
    ("POST https://me:other-pass@api.example/v1", f"POST https://me:{REDACTED}@api.example/v1"),
    ("1 is no secret, /usr/bin:/bin no password", "1 is no secret, /usr/bin:/bin no password"),
    ("user:name@host is no URL", "user:name@host is no URL"),
])
def test_secrets_and_url_passwords_are_redacted(text: str, shown: str) -> None:
    assert redact(text, ENV) == shown


def test_the_log_filter_redacts_arguments_and_tracebacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-abcdefgh12345")
    try:
        raise ValueError("bad key sk-ant-abcdefgh12345")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "sent %s to %s", (
            "sk-ant-abcdefgh12345", "http://u:pw123456@h/"), exc_info=sys.exc_info())
    assert RedactingFilter().filter(record)
    line = logging.Formatter().format(record)
    assert "sk-ant-abcdefgh12345" not in line and "pw123456" not in line
    assert f"sent {REDACTED} to http://u:{REDACTED}@h/" in line


def test_a_secret_set_or_changed_after_a_line_was_redacted_is_redacted_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS9_TEST_TOKEN", "first-secret-1234")
    assert redact("a first-secret-1234 b") == f"a {REDACTED} b"
    monkeypatch.setenv("HARNESS9_TEST_TOKEN", "second-secret-5678")
    monkeypatch.setenv("OTHER_API_KEY", "third-secret-9012")
    assert redact("first-secret-1234 second-secret-5678 third-secret-9012") == (
        f"first-secret-1234 {REDACTED} {REDACTED}")
    monkeypatch.delenv("OTHER_API_KEY")
    assert redact("third-secret-9012") == "third-secret-9012"


def test_keys_a_setting_carries_are_redacted_once_read() -> None:
    """mcpServers' env and headers are a source of keys besides the environment."""
    parse_mcp_servers({
        "local": {"command": "srv", "env": {"GITHUB_TOKEN": "ghp-settings-0123456789",
                                            "MODE": "plain-value-0123"}},
        "remote": {"url": "https://mcp.example/", "headers": {
            "Authorization": "Bearer bearer-settings-0123456789"}},
    })
    shown = redact("token ghp-settings-0123456789, bearer-settings-0123456789, plain-value-0123")
    assert shown == f"token {REDACTED}, {REDACTED}, plain-value-0123"


def test_a_remembered_key_is_redacted_with_any_environment() -> None:
    remember_secret("  sk-remembered-0123456789  ")
    remember_secret("short")  # too short to redact ordinary words
    assert redact("sk-remembered-0123456789 short", {}) == f"{REDACTED} short"
    assert redact("sk-remembered-0123456789") == REDACTED
