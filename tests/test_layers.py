"""The layers of docs/architecture.md hold: no module imports a package above its own, siblings
never import each other, and module names are unique across the package."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "harness9"

# What each top-level package may import besides itself (the "root" is harness9/__init__.py).
ALLOWED: dict[str, set[str]] = {
    # The wire's records: a leaf every side may build and read messages by.
    "protocol": set(),
    "schema": set(),
    "redaction": set(),
    "visible_text": set(),
    "workspace": {"schema", "redaction"},
    "process": {"schema", "redaction"},
    "provider": {"schema", "redaction"},
    "tools": {"schema", "redaction", "visible_text", "workspace", "process"},
    "engine": {"schema", "redaction", "visible_text", "workspace", "process", "provider",
               "tools"},
    "mcp": {"schema", "redaction", "visible_text", "workspace", "process", "tools"},
}
ALLOWED["langservers"] = ALLOWED["mcp"]
ALLOWED["service"] = {"engine", "mcp", "langservers", *ALLOWED["engine"], *ALLOWED["mcp"]}
ALLOWED["lsp"] = ALLOWED["acp"] = {"root", "service", "protocol", *ALLOWED["service"]}
ALLOWED.update({
    # The terminal client speaks to the daemon over the protocol: no server code.
    "client": {"root", "demo", "visible_text", "protocol"},
    "demo": {"workspace"},
})


def _imports(path: Path) -> set[str]:
    """The top-level harness9 packages a module imports (also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "harness9":
                found.add(parts[1] if len(parts) > 1 else "root")
    return found


def _modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "sample" not in p.relative_to(PACKAGE).parts]


def test_no_module_imports_a_layer_above_its_own() -> None:
    wrong = []
    for path in _modules():
        top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if top not in ALLOWED:  # cli.py, __main__.py, __init__.py: the entry points
            continue
        for imported in _imports(path) - ALLOWED[top] - {top}:
            wrong.append(f"{path.relative_to(PACKAGE)} imports harness9.{imported}")
    assert wrong == []


def test_every_package_is_placed_in_a_layer() -> None:
    tops = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in _modules()}
    assert tops - set(ALLOWED) == {"__init__", "__main__", "cli"}


def test_module_names_are_unique() -> None:
    names = Counter(p.name for p in _modules() if p.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []
