"""The language servers used when `languageServers` is not set: the well-known ones whose
program is on `PATH` (one Python type checker: basedpyright, else pyright)."""

from __future__ import annotations

import functools
import os
import shutil

from harness9.langservers.language_config import LanguageServerConfig

_SCRIPT = ("typescript", "typescriptreact", "javascript", "javascriptreact")
WELL_KNOWN = (
    LanguageServerConfig("ruff", ("ruff", "server"), ("python",)),
    LanguageServerConfig("basedpyright", ("basedpyright-langserver", "--stdio"), ("python",)),
    LanguageServerConfig("pyright", ("pyright-langserver", "--stdio"), ("python",)),
    LanguageServerConfig("typescript-language-server",
                         ("typescript-language-server", "--stdio"), _SCRIPT),
    LanguageServerConfig("gopls", ("gopls",), ("go",)),
    LanguageServerConfig("rust-analyzer", ("rust-analyzer",), ("rust",)),
)
# A server left out when the one it names is found (two type checkers would report each
# problem twice).
_INSTEAD_OF = {"pyright": "basedpyright"}


def default_servers(path: str | None = None) -> tuple[LanguageServerConfig, ...]:
    """The well-known servers found on `path` (default: the daemon's PATH)."""
    return _found(os.environ.get("PATH", os.defpath) if path is None else path)


@functools.lru_cache(maxsize=8)
def _found(path: str) -> tuple[LanguageServerConfig, ...]:
    found = [c for c in WELL_KNOWN if shutil.which(c.command[0], path=path) is not None]
    names = {c.name for c in found}
    return tuple(c for c in found if _INSTEAD_OF.get(c.name) not in names)
