"""The agents a `task` call may run: the built-in `explore` and `general`, then the custom ones
of `.harness9/agents/*.md` (the workspace's, then the user's configuration folder's).

A custom agent's file has front matter (`name`, `description`, `tools`: a list of tool names,
`model`, `reasoningEffort`) and its body is the child's instructions. A workspace agent hides a
user agent of the same name; neither replaces a built-in one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness9.service.markdown_files import markdown_files, split_front_matter
from harness9.service.state import config_dir

AGENTS_FOLDER = Path(".harness9") / "agents"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")

EXPLORE_INSTRUCTIONS = (
    "You are an exploring agent: you read and search the workspace to answer the task. You "
    "cannot change files; commands run read-only. Work breadth-first, then end with one "
    "message that reports what you found (paths and line numbers, short excerpts) and "
    "nothing else: it is all the agent that gave you the task will read."
)
GENERAL_INSTRUCTIONS = (
    "You are an agent doing one task for another agent, with the same tools it has. Do the "
    "task, then end with one message that reports what you did and found: it is all the "
    "agent that gave you the task will read."
)


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An agent: its name, when to use it, the tools it may have (None: its kind's), its
    model and effort (None: the parent's), its instructions, where it comes from (`builtin`,
    `workspace`, `user`), and whether it only reads (`explore`)."""

    name: str
    description: str
    instructions: str
    source: str = "builtin"
    tools: tuple[str, ...] | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    read_only: bool = False

    def as_wire(self) -> dict[str, object]:
        """The agent as `agent/agents` lists it."""
        shown: dict[str, object] = {"name": self.name, "description": self.description,
                                    "source": self.source}
        if self.tools is not None:
            shown["tools"] = list(self.tools)
        if self.model is not None:
            shown["model"] = self.model
        if self.reasoning_effort is not None:
            shown["reasoningEffort"] = self.reasoning_effort
        return shown


BUILTIN_AGENTS = (
    AgentSpec("explore", "reads and searches the workspace, read-only (the default)",
              EXPLORE_INSTRUCTIONS, read_only=True),
    AgentSpec("general", "has your tools and approval mode (it may edit)",
              GENERAL_INSTRUCTIONS),
)


def available_agents(root: str, env: Mapping[str, str] | None = None) -> list[AgentSpec]:
    """The built-in agents, then the workspace's and the user's own, sorted by name."""
    found = {agent.name: agent for agent in BUILTIN_AGENTS}
    custom = sorted(_custom(AGENTS_FOLDER, "workspace", root), key=lambda a: a.name)
    custom += sorted(_custom(config_dir(env) / "agents", "user"), key=lambda a: a.name)
    for agent in custom:
        found.setdefault(agent.name, agent)
    return [*BUILTIN_AGENTS, *(a for a in found.values() if a.source != "builtin")]


def _custom(folder: Path, source: str, root: str | None = None) -> list[AgentSpec]:
    """The agents of one folder; a file without a usable name is left out."""
    agents = []
    for file_name, text in markdown_files(folder, root):
        meta, body = split_front_matter(text)
        name = meta.get("name") or file_name[:-3]
        if not _NAME.match(name):
            continue
        first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
        agents.append(AgentSpec(
            name, meta.get("description") or first_line[:80] or name, body.strip(), source,
            tools=_names(meta["tools"]) if "tools" in meta else None,
            model=meta.get("model") or None,
            reasoning_effort=meta.get("reasoningeffort") or None,
        ))
    return agents


def _names(value: str) -> tuple[str, ...]:
    """A front-matter list of names: `[a, b]` or `a, b`."""
    inner = value.strip().removeprefix("[").removesuffix("]")
    return tuple(name.strip().strip("\"'") for name in inner.split(",") if name.strip())


def delegation_note(agents: Sequence[AgentSpec]) -> str:
    """What the parent's system prompt says of the `task` tool: the agents, and when to use
    them (and when not)."""
    return (
        "# Delegating\nWith `task`, delegate breadth-first searches of the codebase and "
        "independent investigations (several at once), each with a self-contained prompt; "
        "never a lookup one or two tool calls can do. Agents: "
        + ", ".join(agent.name for agent in agents) + "."
    )
