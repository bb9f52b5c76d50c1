"""The layers of docs/architecture.md hold: no module imports a package above its own, siblings
never import each other, and module names are unique across the package. Inside `service/` the
same holds one level down, and the front-ends reach the service through its facade only."""

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
    # Beside the entry point: it runs the command line a start hands over.
    "resident": {"root", "cli", "process", "redaction"},
})


# service/'s parts, bottom to top: each inner folder and each top-level module, and what of
# service/ each may import besides itself. The leaves (and `run_request`) are the vocabulary
# every part and front-end shares; the facade's modules may import any part, and no other
# part imports them.
LEAVES = {"state", "background", "service_errors", "attachments", "images", "call_outcome",
          "markdown_files"}
SERVICE: dict[str, set[str]] = {leaf: set() for leaf in LEAVES}
SERVICE["config"] = LEAVES
SERVICE["run_request"] = {"config", *LEAVES}
SERVICE["sessions"] = {"config", *LEAVES}
SERVICE["checkpoints"] = {"sessions", *SERVICE["sessions"]}
SERVICE["worktrees"] = {"run_request", "sessions", *SERVICE["sessions"]}
SERVICE["runs"] = {"checkpoints", "run_request", "worktrees", *SERVICE["checkpoints"]}
SERVICE["commands"] = {"runs", *SERVICE["runs"]}
FACADE = {"agent_service", "turn_desk", "warm_up", "doctor"}
# What a front-end (lsp/, acp/, cli.py) may import of service/: the facade, the vocabulary,
# the settings it resolves (config/), and the types of what the facade hands back, defined
# where they are kept. Never the run core, the stores or the command runs.
FRONT_ENDS = {"lsp", "acp", "cli"}
FACADE_TYPES = {"sessions.session", "sessions.session_log", "checkpoints.files_then",
                "commands.catalog"}


def _imported(path: Path) -> set[str]:
    """The harness9 modules a module imports (also inside functions), dotted."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "harness9"}


def _imports(path: Path) -> set[str]:
    """The top-level harness9 packages a module imports (also inside functions)."""
    return {[*name.split("."), "root"][1] for name in _imported(path)}


def _service_imports(path: Path) -> set[str]:
    """What a module imports of service/, each as `folder.module`, or a top-level module's
    name."""
    found = set()
    for name in _imported(path):
        parts = name.split(".")[2:] if name.startswith("harness9.service.") else []
        if parts and (PACKAGE / "service" / parts[0]).is_dir():
            found.add(".".join(parts[:2]))
        elif parts and (PACKAGE / "service" / f"{parts[0]}.py").is_file():
            found.add(parts[0])
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


def test_no_part_of_the_service_imports_one_above_its_own() -> None:
    wrong = []
    for path in (PACKAGE / "service").rglob("*.py"):
        part = path.relative_to(PACKAGE / "service").parts[0].removesuffix(".py")
        if part in FACADE or part == "__init__":
            continue
        for imported in _service_imports(path):
            if imported.split(".")[0] not in SERVICE[part] | {part}:
                wrong.append(f"service/{path.relative_to(PACKAGE / 'service')} imports {imported}")
    assert wrong == []


def test_every_part_of_the_service_is_placed() -> None:
    parts = {p.name.removesuffix(".py") for p in (PACKAGE / "service").iterdir()
             if p.suffix == ".py" or (p / "__init__.py").is_file()}
    assert parts - set(SERVICE) - FACADE == {"__init__"}


def test_front_ends_reach_the_service_through_its_facade() -> None:
    public = {*FACADE, *SERVICE.keys() - {"runs", "sessions", "checkpoints", "commands"},
              *FACADE_TYPES}
    wrong = []
    for path in _modules():
        top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if top not in FRONT_ENDS:
            continue
        for imported in _service_imports(path):
            if imported not in public and imported.split(".")[0] not in public:
                wrong.append(f"{path.relative_to(PACKAGE)} imports harness9.service.{imported}")
    assert wrong == []


def test_module_names_are_unique() -> None:
    names = Counter(p.name for p in _modules() if p.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []
