"""Suite-wide guards: no test may reach a real LLM service or write to the real home folder."""

from __future__ import annotations

import compileall
import importlib.util
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support import preloaded

# Any accidental request goes to a closed local port and fails at once, instead of reaching a real
# service with a developer's key. Tests that need a model point these at the loopback fake server.
_GUARD = {
    "OPENAI_API_KEY": None,
    "ANTHROPIC_API_KEY": None,
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "HARNESS9_PROVIDER": None,
    "HARNESS9_MODEL": None,
    # Daemons and clients the tests start run bash unsandboxed, as the tests of other features
    # expect (their commands reach the test's loopback servers and temp folders); the sandbox's
    # own tests switch it on (tests/process, tests/e2e/test_sandbox.py).
    "HARNESS9_SANDBOX": "off",
    # Daemons do not load the engine and the SDK ahead of a prompt most of them never get (the
    # CPU it takes would slow the whole suite); tests/e2e/test_warm_up.py switches it on.
    "HARNESS9_WARM_UP": "0",
    # Daemons are not handed to a resident of the user's (tests/support/preloaded.py has the
    # suite's own); tests/resident switches it on with a socket folder of the test's.
    "HARNESS9_RESIDENT": "0",
}


def _apply_guard() -> None:
    for name, value in _GUARD.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_apply_guard()
# Sessions and checkpoints of anything started outside a test's own fixture land here.
_STATE = tempfile.mkdtemp(prefix="harness9-test-state-")
os.environ["HARNESS9_STATE_DIR"] = _STATE
os.environ["XDG_STATE_HOME"] = _STATE
# The user's own settings (AGENTS.md) of a developer's machine must not reach any test.
_CONFIG = tempfile.mkdtemp(prefix="harness9-test-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG


def pytest_configure(config: pytest.Config) -> None:
    """Once per session, in the main process (before any xdist worker starts): harness9's
    bytecode, and the folder of the session's fork server for daemons
    (tests/support/preloaded.py), which the workers inherit."""
    if preloaded.DIR_VARIABLE not in os.environ:
        _compile_harness9()
        os.environ[preloaded.DIR_VARIABLE] = preloaded.new_folder()
        config.stash[_PRELOAD_OWNER] = os.environ[preloaded.DIR_VARIABLE]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the fork server as soon as tests that start daemons are collected."""
    daemon_suites = [Path(__file__).parent / name for name in ("e2e", "acp")]
    if any(item.path.is_relative_to(suite) for item in items for suite in daemon_suites):
        preloaded.warm_up()


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_PRELOAD_OWNER, None)
    if folder is not None:
        preloaded.stop(folder)
        del os.environ[preloaded.DIR_VARIABLE]
    for folder in (_STATE, _CONFIG):
        shutil.rmtree(folder, ignore_errors=True)


_PRELOAD_OWNER = pytest.StashKey[str]()


def _compile_harness9() -> None:
    """Bytecode for harness9's modules, so that the hundreds of daemons the tests start load it
    instead of each compiling every module again (PYTHONDONTWRITEBYTECODE stops the daemons
    from writing it themselves). Up-to-date files are left alone."""
    spec = importlib.util.find_spec("harness9")
    if spec is None or not spec.submodule_search_locations:
        return
    for folder in spec.submodule_search_locations:
        compileall.compile_dir(folder, quiet=2, rx=re.compile(r"[/\\]demo[/\\]sample[/\\]"))


@pytest.fixture(autouse=True)
def _no_real_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-apply the guard for every test, so one test's environment never leaks into the next."""
    for name, value in _GUARD.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True)
def _private_state(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each test keeps its sessions and checkpoints in a state folder of its own, and its user
    configuration (XDG_CONFIG_HOME) too."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(state))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder (its sibling `ws-evil` tests prefix confusion)."""
    root = tmp_path / "ws"
    root.mkdir()
    return root
