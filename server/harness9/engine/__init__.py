"""The agent loop, its events and its block log."""

from harness9.engine.agent_loop import AgentEngine, RunResult
from harness9.engine.events import Event, EventBus

__all__ = ["AgentEngine", "Event", "EventBus", "RunResult"]
