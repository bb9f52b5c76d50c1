"""The `languageServers` setting: `{name: {command: [..], languages: [languageId],
filePatterns?: [glob], initializationOptions?}}`, and which files a server serves.

A file's language is known by its extension (`LANGUAGE_IDS`); a server serves a file of one of
its `languages`, or one its `filePatterns` match (globs over the workspace-relative path, `**`
for any folders, or over the file's name when the glob has no `/`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_KEYS = ("command", "languages", "filePatterns", "initializationOptions")

# The LSP language ids of the files the well-known servers check, by extension.
LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascriptreact",
    ".go": "go", ".rs": "rust",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
    ".java": "java", ".rb": "ruby", ".lua": "lua", ".sh": "shellscript",
}


@dataclass(frozen=True, slots=True)
class LanguageServerConfig:
    """One server: its name, its command line, the language ids it serves, the globs of
    further files it serves, and its `initializationOptions` (as JSON text: configs compare
    and hash whole)."""

    name: str
    command: tuple[str, ...]
    languages: tuple[str, ...] = ()
    file_patterns: tuple[str, ...] = ()
    options_json: str = "null"

    @property
    def initialization_options(self) -> Any:
        """The `initializationOptions` sent with `initialize`."""
        return json.loads(self.options_json)

    def serves(self, path: str) -> bool:
        """Whether this server checks the file at the workspace-relative `path`."""
        if language_of(path) in self.languages:
            return True
        return any(_glob(pattern).match(path if "/" in pattern else posixpath.basename(path))
                   for pattern in self.file_patterns)

    def language_id(self, path: str) -> str:
        """The language id to open `path` with: by its extension, else the server's first."""
        return language_of(path) or (self.languages[0] if self.languages else "plaintext")


def language_of(path: str) -> str | None:
    """The LSP language id of a file by its extension (None: unknown)."""
    return LANGUAGE_IDS.get(posixpath.splitext(path)[1].lower())


@lru_cache(maxsize=128)
def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression: `**/` any folders (none too), `**` anything, `*` and
    `?` within one name."""
    parts, at = [], 0
    while at < len(pattern):
        for token, regex in (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]")):
            if pattern.startswith(token, at):
                parts.append(regex)
                at += len(token)
                break
        else:
            parts.append(re.escape(pattern[at]))
            at += 1
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def parse_language_servers(value: Any) -> tuple[LanguageServerConfig, ...]:
    """The servers of a `languageServers` value, in its order; `TypeError` naming the bad
    part (`{}`: none, which turns the defaults off)."""
    if not isinstance(value, Mapping):
        raise TypeError(f'must be an object {{"name": {{"command": [..], "languages": [..]}}}}, '
                        f"got {value!r}")
    return tuple(_server(str(name), entry) for name, entry in value.items())


def _server(name: str, entry: Any) -> LanguageServerConfig:
    if not name:
        raise TypeError("a server name must not be empty")
    if not isinstance(entry, Mapping):
        raise TypeError(f"{name} must be an object with a command, got {entry!r}")
    unknown = sorted(str(key) for key in entry if key not in _KEYS)
    if unknown:
        raise TypeError(f"{name}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
    command = _strings(name, entry, "command")
    if not command or not command[0]:
        raise TypeError(f"{name}.command must be a non-empty list of strings, "
                        f"got {entry.get('command')!r}")
    languages = _strings(name, entry, "languages")
    patterns = _strings(name, entry, "filePatterns")
    if not languages and not patterns:
        raise TypeError(f"{name}.languages must name at least one language id "
                        "(or give filePatterns)")
    try:
        options = json.dumps(entry.get("initializationOptions"), sort_keys=True)
    except (TypeError, ValueError):
        raise TypeError(f"{name}.initializationOptions must be JSON") from None
    return LanguageServerConfig(name, command, languages, patterns, options)


def _strings(name: str, entry: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = entry.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{name}.{key} must be a list of strings, got {value!r}")
    return tuple(value)
