"""Child agents: the service's side of the `task` tool (its `Subagents` port).

A child is an engine of its own (`build_engine`, as its parent's) with a fresh conversation:
its system prompt, the agent's instructions, and the task's prompt. Its calls go through the
same approval step (the parent's rules, mode and session approvals), sandbox and middleware as
its parent's, and its questions to the same approver, marked with the task call and the agent.
Its events reach the parent's bus wrapped in `ChildEvent`; only its final message comes back
to the parent's model. At most `maxSubagents` children of a run run at once; cancelling the
parent's call cancels its child (it runs in that call's task). A task with isolation
`worktree` runs its child in a worktree task of its own (`ChildWorktrees`): the child's tools,
bash and language servers are the worktree's (no checkpoints: the worktree is what a discard
takes back), and its changes stay there for the user to apply.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Protocol

from harness9.engine import EventBus
from harness9.engine.events import AssistantMessage, ChildEvent, Event, RunFinished
from harness9.provider.provider_errors import ProviderError
from harness9.schema import ChildRun, Message, Role, ToolError, ToolKind, Usage
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunWiring
from harness9.service.runs.agents import AgentSpec
from harness9.service.runs.assembly import CallTurns, build_engine
from harness9.service.runs.planning import PLAN_MODE
from harness9.service.runs.run_tools import run_tools
from harness9.service.sessions.session import Session
from harness9.tools.approvals.policy import SILENT_MODES
from harness9.tools.approvals.step import ApprovalAnswer, ApprovalRequest, Approver
from harness9.tools.contract import BaseTool, ToolOutput
from harness9.tools.registry import Middleware
from harness9.tools.task import AgentInfo, Delegation
from harness9.workspace.seen_files import SeenFiles

MAX_REPORT_BYTES = 32_000  # of a child's final message, as its parent's model reads it
_FOUND_SO_FAR = 3  # a failed child's last messages that go back as what it found


@dataclass(frozen=True, slots=True)
class ParentRun:
    """What a child takes from the run that starts it: its workspace, settings, session
    (the approvals allowed for it, the files it has seen), bus, wiring, the middleware its
    calls pass after the approval step, and the MCP servers' tools."""

    root: str
    settings: RunSettings
    session: Session
    bus: EventBus
    wiring: RunWiring
    steps: Sequence[Middleware]
    mcp_tools: Sequence[BaseTool]
    worktrees: ChildWorktreesPort | None = None  # where isolated children work (None: nowhere)


@dataclass(slots=True)
class ChildPlace:
    """Where an isolated child works: its worktree's root, the wiring and middleware there;
    the child's end `status` (set by its run), and, once the place is left, what became of
    its worktree (`note`, for its parent's model)."""

    root: str
    wiring: RunWiring
    steps: Sequence[Middleware]
    status: str = "error"
    note: str = ""


class ChildWorktreesPort(Protocol):
    """Makes a worktree task for a child agent's session, kept (or removed) when it ends."""

    def isolated(self, session_id: str, title: str, settings: RunSettings
                 ) -> AbstractAsyncContextManager[ChildPlace]:
        """The place a child of session `session_id` (its task titled `title`) works in; a
        `ToolError` saying why when there can be none."""
        ...


class ChildRuns:
    """The `Subagents` port of one run."""

    def __init__(self, parent: ParentRun, agents: Sequence[AgentSpec]) -> None:
        self._parent = parent
        self._agents = {agent.name: agent for agent in agents}
        self._limit = asyncio.Semaphore(parent.settings.max_subagents)

    def agents(self) -> list[AgentInfo]:
        """The agents the model may choose, the built-in ones first."""
        return [AgentInfo(agent.name, agent.description) for agent in self._agents.values()]

    async def run(self, delegation: Delegation) -> ToolOutput:
        """Run the child once one of the run's `maxSubagents` places is free."""
        spec = self._agents[delegation.agent]
        async with self._limit:
            if delegation.isolation is None:
                output, _ = await _run_child(self._parent, spec, delegation)
                return output
            return await _isolated_child(self._parent, spec, delegation)


class AgentsListed:
    """The port of a listing of the tools (`agent/tools`): the agents, and no run."""

    def __init__(self, agents: Sequence[AgentSpec]) -> None:
        self._agents = [AgentInfo(agent.name, agent.description) for agent in agents]

    def agents(self) -> list[AgentInfo]:
        """The agents a run would offer."""
        return self._agents

    async def run(self, delegation: Delegation) -> ToolOutput:
        """Never: a listed tool is not run."""
        raise ToolError("Error: tasks run only in a run")


class ChildApprover:
    """The parent's approver, asked about a child's calls with the task call and agent."""

    def __init__(self, approver: Approver, call_id: str, agent: str) -> None:
        self._approver = approver
        self._call_id = call_id
        self._agent = agent

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Ask the parent's approver, the question marked as the child's."""
        return await self._approver.ask(replace(request, parent_call_id=self._call_id,
                                                 agent=self._agent))


class _Ended:
    """Keeps the child's `RunFinished` (its usage also when the run raised) and the kind of
    each of its calls' tools."""

    def __init__(self) -> None:
        self.finished: RunFinished | None = None
        self.kinds: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.finished = event
        elif isinstance(event, AssistantMessage):
            self.kinds.update((c.unique_id, k.value) for c, k in event.calls_with_kinds())


async def _isolated_child(parent: ParentRun, spec: AgentSpec, delegation: Delegation
                          ) -> ToolOutput:
    """The child's run in a worktree task of its own; its report says where its changes are."""
    if parent.worktrees is None:
        raise ToolError("Error: isolation \"worktree\" is not offered here")
    if parent.settings.approval_policy().mode == PLAN_MODE:
        # A plan changes nothing, and a worktree's setup script is a command the plan did
        # not approve.
        raise ToolError("Error: isolation \"worktree\": this run is in plan mode and changes "
                        "nothing, so the task needs no worktree: run it without isolation")
    session_id = f"{parent.session.id}/{delegation.call_id}"
    async with parent.worktrees.isolated(session_id, delegation.description,
                                         parent.settings) as place:
        there = replace(parent, root=place.root, wiring=place.wiring, steps=place.steps)
        output, place.status = await _run_child(there, spec, delegation, SeenFiles())
    return replace(output, text=f"{output.text}\n\n[{place.note}]")


async def _run_child(
    parent: ParentRun, spec: AgentSpec, delegation: Delegation, seen: SeenFiles | None = None
) -> tuple[ToolOutput, str]:
    """The child's run, to its final message (or its failure, with what it found so far),
    and how it ended (its run's status, or `error`). `seen`: the files it has seen (None: its
    parent's)."""
    settings = child_settings(parent.settings, spec)
    session = Session(f"{parent.session.id}/{delegation.call_id}", root=parent.root,
                      approvals=parent.session.approvals,
                      seen_files=parent.session.seen_files if seen is None else seen)
    tools = child_tools(parent, spec, settings, session.seen_files)
    call_id, agent = delegation.call_id, spec.name
    ended, turns = _Ended(), CallTurns()
    bus = EventBus(turns, ended, lambda event: parent.bus.emit(ChildEvent(call_id, agent, event)))
    approver = parent.wiring.approver
    if spec.read_only and settings.approval_policy().mode not in SILENT_MODES:
        settings = settings.with_approval_mode(PLAN_MODE)  # reads, read-only commands only
    engine = build_engine(
        parent.root, settings, session, bus,
        ChildApprover(approver, call_id, agent) if approver is not None else None,
        turns, tools, middleware=parent.steps,
    )
    engine.system_prompt = f"{engine.system_prompt or ''}\n\n{spec.instructions}".strip()
    engine.call_id_prefix = f"{call_id}/"
    failure, status = None, "error"
    try:
        result = await engine.run(delegation.prompt, session.history)
        status = result.status
        if result.status != "completed":
            failure = f"it reached maxTurns ({result.turns} turns) before it answered"
    except (ProviderError, ToolError) as exc:
        failure = str(exc)
    usage = ended.finished.usage if ended.finished is not None else Usage()
    cost = engine.price.cost(usage) if engine.price is not None else None
    child = ChildRun(agent, usage, cost if cost is None or math.isfinite(cost) else None,
                     tuple(session.history), ended.kinds)
    if failure is not None:
        return _report(f"Error: the {agent} agent failed: {failure}.\nWhat it found so far:\n"
                       f"{_found(session.history)}", child, failed=True), status
    return _report(result.text or "(the agent ended without a message)", child), status


def child_settings(settings: RunSettings, spec: AgentSpec) -> RunSettings:
    """A child's settings: its parent's, with the agent's model and effort, and for an agent
    that only reads, commands confined read-only (where the OS sandbox works; its calls are
    then decided as in plan mode, so a command the sandbox stopped never runs outside)."""
    if spec.model is not None:
        settings = replace(settings, model=spec.model)
    if spec.reasoning_effort is not None:
        settings = replace(settings, reasoning_effort=spec.reasoning_effort)
    if spec.read_only and settings.sandbox_works():
        settings = replace(settings, sandbox=settings.sandbox.read_only())
    return settings


def child_tools(
    parent: ParentRun, spec: AgentSpec, settings: RunSettings, seen: SeenFiles
) -> list[BaseTool]:
    """A child's tools: its parent's (never `task`), keeping what it read and wrote in `seen`;
    for an agent that only reads, the read tools and read-only commands (none in read-only
    mode); for a custom agent, those its file names (a name it cannot have is an error)."""
    tools = run_tools(parent.root, settings, parent.wiring, seen=seen,
                      mcp_tools=() if spec.read_only else parent.mcp_tools)
    if spec.read_only:
        commands = settings.sandbox_works() and settings.approval_policy().mode != "read-only"
        kinds = {ToolKind.READ, *((ToolKind.EXECUTE,) if commands else ())}
        return [tool for tool in tools if tool.definition().kind in kinds]
    if spec.tools is None:
        return tools
    names = {tool.name for tool in tools}
    unknown = [name for name in spec.tools if name not in names]
    if unknown:
        raise ToolError(f"Error: the {spec.name} agent names tools it cannot have: "
                        f"{', '.join(unknown)} (it may have: {', '.join(sorted(names))})")
    return [tool for tool in tools if tool.name in spec.tools]


def _found(history: Sequence[Message]) -> str:
    """A failed child's last few messages with text: what it found so far."""
    texts = [m.content for m in history if m.role is Role.ASSISTANT and m.content.strip()]
    return "\n\n".join(texts[-_FOUND_SO_FAR:]) or "(nothing yet)"


def _report(text: str, child: ChildRun, failed: bool = False) -> ToolOutput:
    """What the parent's model reads: `text`, cut to `MAX_REPORT_BYTES`."""
    data = text.encode("utf-8", "replace")
    if len(data) <= MAX_REPORT_BYTES:
        return ToolOutput(text, len(data), child=child, failed=failed)
    cut = data[:MAX_REPORT_BYTES].decode("utf-8", "ignore")
    note = f"\n[… cut to {MAX_REPORT_BYTES} of {len(data)} bytes; the whole is in the session]"
    return ToolOutput(cut + note, len(data), truncated=True, child=child, failed=failed)
