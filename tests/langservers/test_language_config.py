"""The `languageServers` setting: what it accepts, the bad part it names, which files a server
serves, and the defaults found on PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness9.langservers.language_config import parse_language_servers
from harness9.langservers.well_known import default_servers
from harness9.service.config.settings import (
    SettingsError,
    from_environment,
    merge_client,
    parse_overrides,
    resolve,
)


def test_a_server_is_a_command_with_languages_or_patterns() -> None:
    [server] = parse_language_servers({"lint": {
        "command": ["ruff", "server"], "languages": ["python"],
        "filePatterns": ["**/*.toml", "docs/*.md", "Makefile"],
        "initializationOptions": {"settings": {"lineLength": 100}}}})
    assert (server.name, server.command, server.languages) == (
        "lint", ("ruff", "server"), ("python",))
    assert server.initialization_options == {"settings": {"lineLength": 100}}
    served = {p: server.serves(p) for p in (
        "a.py", "pkg/b.pyi", "pyproject.toml", "x/y/z.toml", "docs/a.md", "docs/deep/a.md",
        "Makefile", "src/Makefile", "notes.txt")}
    assert [p for p, yes in served.items() if not yes] == ["docs/deep/a.md", "notes.txt"]
    assert server.language_id("a.py") == "python"
    assert server.language_id("pyproject.toml") == "python"  # its first language
    assert parse_language_servers({}) == ()


@pytest.mark.parametrize(("value", "named"), [
    ([], "must be an object"),
    ({"x": "ruff"}, "x must be an object"),
    ({"x": {"command": "ruff server", "languages": ["python"]}}, "x.command"),
    ({"x": {"command": [], "languages": ["python"]}}, "x.command"),
    ({"x": {"command": ["ruff"], "languages": "python"}}, "x.languages"),
    ({"x": {"command": ["ruff"]}}, "x.languages must name"),
    ({"x": {"command": ["ruff"], "languages": ["python"], "args": []}}, "unknown key 'args'"),
    ({"x": {"command": ["ruff"], "filePatterns": [1]}}, "x.filePatterns"),
    ({"x": {"command": ["ruff"], "languages": ["python"],
            "initializationOptions": {1j: 2}}}, "x.initializationOptions"),
])
def test_a_bad_server_is_refused_naming_the_part(value: object, named: str) -> None:
    with pytest.raises(TypeError, match=named.replace("(", r"\(")):
        parse_language_servers(value)


def test_the_setting_is_daemon_wide_and_comes_from_the_client_or_the_environment() -> None:
    servers = {"lint": {"command": ["ruff", "server"], "languages": ["python"]}}
    merged, problems = merge_client({}, {"languageServers": servers})
    assert problems == [] and [s.name for s in resolve(merged).language_servers or ()] == [
        "lint"]
    _, problems = merge_client({}, {"languageServers": {"lint": {"command": "ruff"}}})
    assert problems == ["languageServers: lint.command must be a list of strings, got 'ruff'"]
    with pytest.raises(SettingsError, match="languageServers"):
        parse_overrides({"languageServers": servers})
    assert resolve().language_servers is None  # the defaults
    assert resolve(from_environment({"HARNESS9_LANGUAGE_SERVERS": "{}"})).language_servers == ()


def test_the_defaults_are_the_well_known_servers_on_path(tmp_path: Path) -> None:
    for name in ("ruff", "basedpyright-langserver", "pyright-langserver", "gopls"):
        program = tmp_path / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    found = default_servers(str(tmp_path))
    # One Python type checker: basedpyright before pyright.
    assert [s.name for s in found] == ["ruff", "basedpyright", "gopls"]
    assert default_servers(str(tmp_path / "nothing-here")) == ()
