"""The agent loop of the seed: call the model, run its tool calls concurrently, feed results back.

The engine knows no LSP and no wire format: it talks to an `LLMProvider`, a tool `Registry`, and
reports every step as an event on an `EventBus`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness9.engine.batch import BatchObserver
from harness9.engine.call_ids import CallIds
from harness9.engine.compaction import Compaction, compact
from harness9.engine.context import ContextMeter, ContextPolicy, tools_tokens
from harness9.engine.events import (
    AssistantMessage,
    ContextCompacted,
    EventBus,
    LLMCallStarted,
    ObservationAdded,
    RunFinished,
    RunStarted,
    Steered,
    ThinkingDone,
    TurnStarted,
    UsageReported,
)
from harness9.engine.model_call import call_model
from harness9.engine.steering import DELIVERED, Steering
from harness9.engine.tool_pairing import pair_tool_calls
from harness9.engine.toolrun import DEFAULT_MAX_PARALLEL, execute_concurrently
from harness9.provider.llm_provider import LLMProvider
from harness9.provider.provider_errors import ContextTooLongError, ProviderError
from harness9.schema import (
    Image,
    Message,
    Plan,
    Price,
    Role,
    ToolCall,
    ToolDefinition,
    ToolKind,
    ToolResult,
    Usage,
)
from harness9.tools.registry import Registry


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended: `completed` (the model answered without tool calls) or `max_turns`."""

    status: str
    text: str
    turns: int
    tool_calls: int
    usage: Usage


@dataclass(slots=True)
class _RunState:
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    # Of the calls' child agents (task): in the run's totals, priced at their own models'.
    child_usage: Usage = field(default_factory=Usage)
    child_cost: float = 0.0
    text: str = ""
    meter: ContextMeter = field(default_factory=ContextMeter)
    ids: CallIds = field(default_factory=CallIds)
    steering: Steering | None = None


class AgentEngine:
    """Runs prompts through the seed's loop. One engine may serve many runs, one at a time each.

    A turn's tool calls run concurrently, at most `max_parallel_tools` at once; a
    `batch_observer` hears each batch before it starts and after its results are in. With a
    `context` policy, the history is compacted before a call that would not fit, and once more
    (then retried) when the provider refuses a request for being too long; a compaction's
    summary restates `plan`, the model's latest plan (kept up to date by its plan tool calls).
    """

    def __init__(
        self,
        provider: LLMProvider,
        registry: Registry,
        *,
        max_turns: int = 100,
        tool_timeout: float | None = 60.0,
        thinking: bool = False,
        stream: bool = True,
        bus: EventBus | None = None,
        workspace_root: str = "",
        system_prompt: str | None = None,
        max_parallel_tools: int = DEFAULT_MAX_PARALLEL,
        batch_observer: BatchObserver | None = None,
        context: ContextPolicy | None = None,
        plan: Plan | None = None,
        price: Price | None = None,
        call_id_prefix: str = "",
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        if max_parallel_tools < 1:
            raise ValueError("max_parallel_tools must be at least 1")
        self.provider = provider
        self.registry = registry
        self.max_turns = max_turns
        self.tool_timeout = tool_timeout
        self.thinking = thinking
        self.stream = stream
        self.bus = bus or EventBus()
        self.workspace_root = workspace_root
        self.system_prompt = system_prompt
        self.max_parallel_tools = max_parallel_tools
        self.batch_observer = batch_observer
        self.context = context
        self.plan = plan
        self.price = price  # the model's, when known: usage events then carry the run's cost
        self.call_id_prefix = call_id_prefix  # a child run's: its call ids unique in the parent

    async def run(
        self, prompt: str, history: list[Message] | None = None, steering: Steering | None = None,
        images: tuple[Image, ...] = (),
    ) -> RunResult:
        """Run `prompt` to its end, appending every message to `history` (the session's context).

        A new conversation (empty `history`) starts with the engine's system prompt, if any.
        Messages put into `steering` while the run goes on join the conversation before the
        next model call; one that arrives while the model gives what would be its last answer
        makes the run go on for one more call. The caller closes `steering` after the run.

        Returns on completion or when `max_turns` action calls have been made. Provider failures
        and cancellation are raised after the final `RunFinished` event; `history` stays valid for
        the next run either way (every tool call has its observation).
        """
        history = history if history is not None else []
        state = _RunState(steering=steering)
        self._emit_started()
        pair_tool_calls(history)  # a stored history a stopped run left half way
        state.ids = CallIds(history, self.call_id_prefix)
        if not history and self.system_prompt:
            history.append(Message.system(self.system_prompt))
        history.append(Message.user(prompt, images))
        try:
            status = await self._loop(history, state)
        except asyncio.CancelledError:
            self._emit_finished(state, history, "cancelled")
            raise
        except ProviderError as exc:
            error: dict[str, Any] = {"kind": exc.kind, "message": exc.message}
            if exc.status is not None:
                error["status"] = exc.status
            self._emit_finished(state, history, "error", error)
            raise
        except Exception as exc:
            error = {"kind": "internal", "message": f"{type(exc).__name__}: {exc}"}
            self._emit_finished(state, history, "error", error)
            raise
        self._emit_finished(state, history, status)
        return RunResult(status, state.text, state.turns, state.tool_calls, _total(state))

    async def _loop(self, history: list[Message], state: _RunState) -> str:
        tools = self.registry.available_tools()
        state.meter = ContextMeter(tools_tokens(tools))
        while True:
            state.turns += 1
            turn = state.turns
            self._deliver(turn, history, state)
            turn_start = len(history)
            self.bus.emit(TurnStarted(turn=turn, messages=turn_start))
            if self.thinking:
                await self._think(turn, history, state)
            message = state.ids.assign(await self._call(turn, "action", history, tools, state))
            history.append(message)
            state.text = message.content
            kinds = self._kinds(message.tool_calls)
            self.bus.emit(AssistantMessage(turn, message.content, message.tool_calls, kinds))
            if not message.tool_calls:
                if state.steering is None or not state.steering.pending() or (
                        turn >= self.max_turns):
                    return "completed"
                continue  # a steer came while the model answered: it answers that too
            await self._act(turn, message, history, state, turn_start)
            if turn >= self.max_turns:
                return "max_turns"

    def _deliver(self, turn: int, history: list[Message], state: _RunState) -> None:
        """Add the steers that came since the last model call, as user messages (the safe
        point: every earlier tool call has its result)."""
        if state.steering is None:
            return
        for steer in state.steering.take():
            history.append(Message.user(steer.message))
            self.bus.emit(Steered(turn=turn, text=steer.shown))
            if not steer.fate.done():
                steer.fate.set_result(DELIVERED)

    async def _think(self, turn: int, history: list[Message], state: _RunState) -> None:
        """Phase 1: a call with tools withheld (`None`: the parameter is not sent at all)."""
        thought = await self._call(turn, "thinking", history, None, state)
        history.append(Message(role=Role.ASSISTANT, content=thought.content))
        self.bus.emit(ThinkingDone(turn=turn, text=thought.content))

    async def _call(
        self,
        turn: int,
        phase: str,
        history: list[Message],
        tools: Sequence[ToolDefinition] | None,
        state: _RunState,
    ) -> Message:
        count = None if tools is None else len(tools)
        await self._fit(turn, history, state)
        self.bus.emit(LLMCallStarted(turn=turn, phase=phase, tools=count))
        forward = self.bus if phase == "action" else None
        try:
            message, usage = await call_model(
                self.provider, history, tools, turn=turn, stream=self.stream, bus=forward
            )
        except ContextTooLongError:
            # Our estimate was low (or compaction is off): compact once and retry once.
            if self.context is None or (await self._compact(turn, history, state, True)) is None:
                raise
            message, usage = await call_model(
                self.provider, history, tools, turn=turn, stream=self.stream, bus=forward
            )
        state.meter.reported(usage, len(history))
        if usage.input_tokens or usage.output_tokens:
            state.usage = state.usage + usage
            window = self.context.window if self.context is not None else 0
            cost = None if self.price is None else self.price.cost(state.usage) + state.child_cost
            if cost is not None and not math.isfinite(cost):
                cost = None  # prices so high that the sum overflowed: no cost, not infinity
            self.bus.emit(UsageReported(turn, usage, _total(state), context_window=window,
                                        cost=cost))
        return message

    async def _fit(self, turn: int, history: list[Message], state: _RunState) -> None:
        """Compact before a call that would pass the policy's threshold."""
        policy = self.context
        if policy is None or not policy.auto_compact:
            return
        if state.meter.estimate(history) > policy.threshold:
            await self._compact(turn, history, state, False)

    async def _compact(
        self, turn: int, history: list[Message], state: _RunState, force: bool
    ) -> Compaction | None:
        """Compact `history` in place; None when nothing could be compacted."""
        assert self.context is not None
        estimate = state.meter.estimate(history)
        done = await compact(
            history, self.provider, self.context, estimate,
            tools=state.meter.tools, force=force, plan=self.plan,
        )
        if done.method == "none":
            return None
        state.meter.forget()
        self.bus.emit(ContextCompacted(turn, done.before, done.after, done.method))
        return done

    async def _act(
        self,
        turn: int,
        message: Message,
        history: list[Message],
        state: _RunState,
        turn_start: int,
    ) -> None:
        """Phase 2's tools: run concurrently (up to the cap), then inject the observations in call
        order."""
        calls = message.tool_calls
        kinds = self._kinds(calls)
        before = len(history)
        if self.batch_observer is not None:
            await self.batch_observer.before_batch(turn, calls, kinds, turn_start)
        state.tool_calls += len(calls)
        results: list[ToolResult | None] = [None] * len(calls)
        try:
            await execute_concurrently(
                self.registry, calls, results, turn=turn, timeout=self.tool_timeout,
                bus=self.bus, max_parallel=self.max_parallel_tools,
            )
        finally:
            # Also on cancellation, when every unfinished call holds a cancelled result: the
            # history must pair each tool call with an observation to stay valid for the next run.
            history.extend(Message.observation(r) for r in results if r is not None)
            for result in results:
                if result is not None and result.plan is not None:
                    self.plan = result.plan
                if result is not None and result.child is not None:
                    state.child_usage = state.child_usage + result.child.usage
                    state.child_cost += result.child.cost_usd or 0.0
        ids = tuple(call.unique_id for call in calls)
        self.bus.emit(ObservationAdded(turn, ids, before, len(history)))
        if self.batch_observer is not None:
            await self.batch_observer.after_batch(turn, calls, kinds, len(history))

    def _kinds(self, calls: Sequence[ToolCall]) -> tuple[ToolKind, ...]:
        """The kind of each call's tool, in call order."""
        return tuple(self.registry.kind_of(call.name) for call in calls)

    def _emit_started(self) -> None:
        self.bus.emit(
            RunStarted(
                workspace_root=self.workspace_root,
                provider=self.provider.name,
                model=self.provider.model,
                max_turns=self.max_turns,
                tool_timeout_ms=int((self.tool_timeout or 0) * 1000),
                thinking=self.thinking,
                stream=self.stream,
                # Only the SDK adapters have an effort; a script or a test double has none.
                reasoning_effort=getattr(self.provider, "reasoning_effort", None),
            )
        )

    def _emit_finished(
        self,
        state: _RunState,
        history: list[Message],
        status: str,
        error: dict[str, Any] | None = None,
    ) -> None:
        # A run stopped between an assistant message and its results (a cancel while a
        # checkpoint was taken, a second cancel during the clean-up) answers its calls here,
        # before the history is stored or sent.
        pair_tool_calls(history)
        self.bus.emit(
            RunFinished(
                status=status,
                turns=state.turns,
                tool_calls=state.tool_calls,
                usage=_total(state),
                messages=len(history),
                text=state.text,
                error=error,
            )
        )


def _total(state: _RunState) -> Usage:
    """The run's usage: its own model calls' and its child agents'."""
    return state.usage + state.child_usage
