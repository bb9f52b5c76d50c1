"""Loading the ACP SDK's schema without the work only its JSON Schema would use.

`acp.schema` declares some 270 pydantic models with `use_attribute_docstrings`: pydantic then
finds each class's source, tokenizes and parses it, to give every field its docstring as a
description. That is 40% of the SDK's import (about 180 of 450 ms of CPU), on the way to a
first prompt's answer; and the descriptions only show in a JSON Schema, which nothing here
generates.

`install()` puts a finder in front of the import system that loads `acp.schema`, and nothing
else, with its model configs' `ConfigDict(...)` calls leaving `use_attribute_docstrings` out.
Every message is validated and serialized as before. (Deferring the validators' build as well
would save 50 ms more, but move about 15 ms onto the first prompt, which the client waits for.)
The finder takes itself out on first use; when the SDK's layout is not as expected (no such
module, not a source file), the module is imported as usual.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

SCHEMA = "acp.schema"


def install() -> None:
    """Load `acp.schema` lightly when it is first imported (a no-op once it is loaded)."""
    if SCHEMA not in sys.modules and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def _uninstall() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]


def light_config(**values: Any) -> dict[str, Any]:
    """A model config as `acp.schema` asks for it, without docstring descriptions."""
    import pydantic

    values.pop("use_attribute_docstrings", None)
    return dict(pydantic.ConfigDict(**values))  # type: ignore[typeddict-item]


class _Finder:
    """Finds `acp.schema` where the import system would, and loads it with `_Loader`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != SCHEMA:
            return None
        _uninstall()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None  # the import system finds it again, without us
        spec.loader = _Loader(spec.loader)  # type: ignore[assignment]
        return spec

    def invalidate_caches(self) -> None:
        """Nothing cached here."""


class _Loader:
    """Runs the module's own code, its `from pydantic import ...` handing it `light_config`
    as `ConfigDict`; anything else is the file loader's."""

    def __init__(self, inner: importlib.machinery.SourceFileLoader) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        """The default module object."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """The module's code, with an `__import__` of its own while it runs (functions defined
        meanwhile keep those builtins: the same objects but that one, which only wraps)."""
        namespace = module.__dict__
        namespace["__builtins__"] = {**builtins.__dict__, "__import__": _import}
        try:
            self._inner.exec_module(module)
        finally:
            namespace["__builtins__"] = builtins.__dict__  # as any module's

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _import(
    name: str, globals: Any = None, locals: Any = None, fromlist: Sequence[str] = (),
    level: int = 0,
) -> Any:
    module = builtins.__import__(name, globals, locals, fromlist, level)
    if name == "pydantic" and level == 0 and "ConfigDict" in (fromlist or ()):
        return _PydanticView(module)
    return module


class _PydanticView:
    """`pydantic` as `acp.schema` imports from it: `ConfigDict` is `light_config`."""

    ConfigDict = staticmethod(light_config)

    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)
