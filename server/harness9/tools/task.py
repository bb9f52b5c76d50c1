"""The `task` tool: the model hands a piece of work to a child agent with a context of its own.

The tool knows no engine and no service: it checks the call and hands it to a `Subagents` port
(the service runs the child and gives back what its final message said). A child is offered no
`task` tool, so delegation is one level deep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from harness9.schema import ToolDefinition, ToolError, ToolKind
from harness9.tools.contract import (
    CALL_ID,
    ToolOutput,
    parse_arguments,
    string_property,
    tool_definition,
)

TASK_TOOL = "task"
DEFAULT_AGENT = "explore"
WORKTREE = "worktree"  # the one isolation there is


@dataclass(frozen=True, slots=True)
class AgentInfo:
    """An agent the model may delegate to: its `name` and when to use it (`description`)."""

    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Delegation:
    """One `task` call: the call's wire id, the agent, a short description, the prompt, and
    its isolation (`worktree`: the child works in a git worktree of its own)."""

    call_id: str
    agent: str
    description: str
    prompt: str
    isolation: str | None = None


class Subagents(Protocol):
    """The port the service provides: the agents there are, and running a child."""

    def agents(self) -> Sequence[AgentInfo]:
        """The agents the model may choose, the built-in ones first."""
        ...

    async def run(self, delegation: Delegation) -> ToolOutput:
        """Run the child to its end: its final message (the output), its run (`child`),
        and `failed` when it ended badly (what it found so far is then the output)."""
        ...


class TaskTool:
    """Delegates to a child agent through `subagents`."""

    name = TASK_TOOL
    untimed = True  # a child's run is bounded by its own turns, not by the tool timeout

    def __init__(self, subagents: Subagents) -> None:
        self._subagents = subagents

    def definition(self) -> ToolDefinition:
        """The description (with the agents there are) and JSON Schema offered to the model."""
        agents = self._subagents.agents()
        names = [agent.name for agent in agents]
        properties = {
            "description": string_property("A 3-7 word title"),
            "prompt": string_property("All the agent needs to know, and what to report"),
            "agent": {"type": "string", "enum": names, "description": f"Default {DEFAULT_AGENT}"},
            "isolation": {"type": "string", "enum": [WORKTREE],
                          "description": "worktree: the agent works in a git worktree of its "
                                         "own; its changes stay there, for the user to apply"},
        }
        return tool_definition(self.name, _description(agents), properties,
                               ["description", "prompt"], kind=ToolKind.THINK)

    async def execute(self, arguments: str) -> ToolOutput:
        """Check the call, then run the child and return its final message."""
        values = parse_arguments(arguments)
        isolation = values.get("isolation")
        if isolation not in (None, WORKTREE):
            raise ToolError(f"Error: unknown isolation {isolation!r}: it is \"{WORKTREE}\" "
                            "or left out")
        agent = str(values.get("agent") or DEFAULT_AGENT)
        known = [info.name for info in self._subagents.agents()]
        if agent not in known:
            raise ToolError(f"Error: unknown agent {agent!r}; the agents are: "
                            f"{', '.join(known)}")
        prompt = str(values.get("prompt", "")).strip()
        if not prompt:
            raise ToolError("Error: `prompt` is empty: say what the agent should do")
        call_id = CALL_ID.get() or ""
        return await self._subagents.run(
            Delegation(call_id, agent, str(values.get("description", "")), prompt, isolation))


def _description(agents: Sequence[AgentInfo]) -> str:
    listing = "; ".join(f"{agent.name}: {agent.description}" for agent in agents)
    return f"Run a child agent with a fresh context; only its final message returns. {listing}"
