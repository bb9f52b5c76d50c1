"""Fixtures both end-to-end suites use (tests/e2e drives `harness9 serve`, tests/acp drives
`harness9 acp`): the loopback fake LLM and a workspace. Import them in a conftest.py."""

from pathlib import Path

import pytest

from tests.fakellm.fixtures import fake_llm

__all__ = ["fake_llm", "workspace"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder holding `a.txt` ("alpha")."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root
