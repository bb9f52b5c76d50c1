"""Building a run's engine from its settings: provider, tools, approval step, system prompt."""

from __future__ import annotations

from collections.abc import Sequence

from harness9.engine import AgentEngine, EventBus
from harness9.engine.batch import BatchObserver
from harness9.engine.context import ContextPolicy, window_for
from harness9.engine.events import ApprovalRequested, ApprovalResolved, AssistantMessage, Event
from harness9.engine.system_prompt import default_system_prompt
from harness9.provider.factory import create_provider
from harness9.provider.prices import price_of
from harness9.schema import ToolCall
from harness9.service.config.providers import provider_settings
from harness9.service.config.settings import RunSettings
from harness9.service.runs.instructions import (
    NestedInstructions,
    project_instructions,
    with_instructions,
)
from harness9.service.runs.planning import command_sandbox
from harness9.service.sessions.session import Session
from harness9.tools.approvals.policy import DecidedBy
from harness9.tools.approvals.step import (
    Answer,
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStep,
    Approver,
)
from harness9.tools.contract import BaseTool
from harness9.tools.registry import Middleware, Registry


def build_engine(
    root: str,
    settings: RunSettings,
    session: Session,
    bus: EventBus,
    approver: Approver | None,
    turns: CallTurns,
    tools: Sequence[BaseTool],
    *,
    batch_observer: BatchObserver | None = None,
    middleware: Sequence[Middleware] = (),
) -> AgentEngine:
    """The engine of one run on `root` offering `tools` (see `run_tools`), reporting to `bus`,
    asking `approver`; `middleware` comes after the approval step (it sees only calls that may
    run), `batch_observer` hears each tool batch."""
    settings = command_sandbox(settings)
    provider = create_provider(provider_settings(settings))
    registry = Registry(_steps(root, settings, session, bus, approver, turns, middleware))
    for tool in tools:
        registry.register(tool)
    return AgentEngine(
        provider,
        registry,
        max_turns=settings.max_turns,
        tool_timeout=settings.tool_timeout_ms / 1000,
        thinking=settings.thinking,
        stream=settings.stream,
        bus=bus,
        workspace_root=root,
        system_prompt=system_prompt(root, settings) if not session.history else None,
        max_parallel_tools=settings.max_parallel_tools,
        batch_observer=batch_observer,
        context=context_policy(settings, provider.model),
        plan=session.plan,
        price=price_of(provider.model, settings.prices),
    )


def _steps(
    root: str,
    settings: RunSettings,
    session: Session,
    bus: EventBus,
    approver: Approver | None,
    turns: CallTurns,
    middleware: Sequence[Middleware],
) -> list[Middleware]:
    """Every call's way through: the approval step, `middleware`, then the nested project
    instructions (when on)."""
    step = ApprovalStep(
        settings.approval_policy(),
        approver or NobodyToAsk(),
        root=root,
        memory=session.approvals,
        observer=ApprovalEvents(bus, turns),
    )
    steps: list[Middleware] = [step, *middleware]
    if settings.instructions:
        steps.append(NestedInstructions(root, session.instructions_seen))
    return steps


def context_policy(settings: RunSettings, model: str) -> ContextPolicy:
    """When a run on `model` compacts its conversation."""
    return ContextPolicy(
        window_for(model, settings.context_window), settings.auto_compact, settings.compact_at
    )


def system_prompt(root: str, settings: RunSettings) -> str:
    """A new conversation's system prompt: ours, then the project instructions (when on)."""
    prompt = default_system_prompt(root)
    if not settings.instructions:
        return prompt
    return with_instructions(prompt, project_instructions(root))


class NobodyToAsk:
    """The approver when the front-end has no user to ask: every question is a rejection."""

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Reject, saying why."""
        return ApprovalAnswer(
            Answer.REJECT,
            "nobody could be asked for approval here; the approval settings must allow this "
            "call (or use the yolo mode)",
        )


class CallTurns:
    """An event subscriber that knows the turn of each tool call (from the assistant message
    that asked for it, which comes before the call's approval step and its start)."""

    def __init__(self) -> None:
        self._turns: dict[str, int] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, AssistantMessage):
            for call in event.tool_calls:
                self._turns[call.unique_id] = event.turn

    def turn_of(self, call_id: str) -> int:
        """The turn of a call the model asked for (0 when it is unknown)."""
        return self._turns.get(call_id, 0)


class ApprovalEvents:
    """Turns what the approval step does into events."""

    def __init__(self, bus: EventBus, turns: CallTurns) -> None:
        self._bus = bus
        self._turns = turns

    def requested(self, request: ApprovalRequest) -> None:
        """The user is being asked."""
        turn = self._turns.turn_of(request.call.unique_id)
        self._bus.emit(
            ApprovalRequested(turn, request.call, request.title, request.kind, request.reason)
        )

    def resolved(self, call: ToolCall, decision: str, by: DecidedBy, rule: str | None) -> None:
        """A call's fate was decided."""
        turn = self._turns.turn_of(call.unique_id)
        self._bus.emit(ApprovalResolved(turn, call, decision, by.value, rule))
