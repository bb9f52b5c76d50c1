"""The interactive prompt's model and command lists.

`/model` lists the models the daemon can use (`agent/models`), `/model [provider:]ID [low|
medium|high]` picks one: for the session (`agent/setModel`), or, before there is one, as the
`provider`/`model`/`reasoningEffort` params of the next runs. The daemon's slash commands
(`agent/commands`) are listed by `/help` and completed with Tab (see `completion`); the daemon
runs them when they are sent as prompts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

if TYPE_CHECKING:
    from harness9.client.rpc import DaemonClient

PROVIDERS = ("openai", "anthropic", "replay")
EFFORTS = ("low", "medium", "high")
MODEL_KEYS = ("provider", "model", "reasoningEffort")
MODEL_USAGE = "/model [provider:]ID [low|medium|high]"


class SlashError(Exception):
    """A slash command that cannot be carried out; the message is shown as is."""


def split_model(text: str) -> tuple[str | None, str]:
    """`("anthropic", "claude-x")` for `anthropic:claude-x`; a prefix that names no provider
    stays part of the id (`ft:gpt-4o:org`)."""
    provider, sep, model = text.partition(":")
    if sep and provider in PROVIDERS and model:
        return provider, model
    return None, text


def model_choice(words: str) -> dict[str, str]:
    """The `agent/setModel` fields of `[provider:]ID [effort]`; raises `SlashError`."""
    parts = words.split()
    if not parts or len(parts) > 2:
        raise SlashError(f"usage: {MODEL_USAGE}")
    if len(parts) == 2 and parts[1] not in EFFORTS:
        raise SlashError(f"the reasoning effort is low, medium or high, not {parts[1]!r}")
    provider, model = split_model(parts[0])
    choice = {"model": model}
    if provider:
        choice["provider"] = provider
    if len(parts) == 2:
        choice["reasoningEffort"] = parts[1]
    return choice


def model_label(choice: dict[str, Any]) -> str:
    """`openai:gpt-4o · effort high`."""
    name = str(choice.get("model"))
    if choice.get("provider"):
        name = f"{choice['provider']}:{name}"
    effort = choice.get("reasoningEffort")
    return f"{name} · effort {effort}" if effort else name


def models_text(result: dict[str, Any]) -> Text:
    """The `agent/models` answer as lines: `● openai/gpt-4o · 128k context · reasoning`."""
    found = result.get("current")
    current: dict[str, Any] = found if isinstance(found, dict) else {}
    text = Text()
    for model in result.get("models") or []:
        if not isinstance(model, dict):
            continue
        in_use = current.get("model") == model.get("id") and current.get("provider") in (
            None,
            model.get("provider"),
        )
        text.append("● " if in_use else "  ", style="green")
        text.append(f"{model.get('provider')}/{model.get('id')}", style="bold" if in_use else "")
        details = _details(model)
        if details:
            text.append(f" · {details}", style="dim")
        text.append("\n")
    for failed in result.get("errors") or []:
        if isinstance(failed, dict):
            text.append(f"  {failed.get('provider')}: {failed.get('message')}\n", style="yellow")
    text.append(f"{MODEL_USAGE} picks one", style="dim")
    return text


def _details(model: dict[str, Any]) -> str:
    parts = []
    window = model.get("contextWindow")
    if isinstance(window, int) and window > 0:
        parts.append(f"{window // 1000}k context")
    if model.get("images"):
        parts.append("images")
    if model.get("reasoning"):
        parts.append("reasoning")
    return " · ".join(parts)


def commands_text(commands: Iterable[dict[str, Any]]) -> Text:
    """The daemon's commands, one a line: `  /review FOCUS   Review the diff (workspace)`."""
    text = Text("The daemon runs these when sent as prompts:")
    for command in commands:
        hint = command.get("argumentHint") or ""
        head = f"/{command.get('name')} {hint}".rstrip()
        text.append(f"\n  {head:<28} ", style="bold")
        text.append(str(command.get("description") or ""))
        if command.get("source") not in (None, "builtin"):
            text.append(f" ({command.get('source')})", style="dim")
    return text


@dataclass
class Slash:
    """The interactive session's model choice and the daemon's commands."""

    client: DaemonClient
    workspace: Path
    as_json: bool = False
    commands: list[dict[str, Any]] = field(default_factory=list)
    say: Callable[[Text], None] = print

    async def load_commands(self, session_id: str | None) -> list[dict[str, Any]]:
        """Ask for the daemon's commands (none when it does not serve `agent/commands`)."""
        from harness9.client.rpc import RpcError

        params: dict[str, Any] = {"workspaceFolder": self.workspace.as_uri()}
        if session_id:
            params["sessionId"] = session_id
        try:
            answer = await self.client.request("agent/commands", params)
        except RpcError:
            return self.commands
        listed = answer.get("commands") if isinstance(answer, dict) else None
        self.commands = [c for c in listed or [] if isinstance(c, dict) and c.get("name")]
        return self.commands

    def names(self) -> list[str]:
        """`/name` of every daemon command."""
        return [f"/{command['name']}" for command in self.commands]

    async def model(
        self, words: str, session_id: str | None, base: dict[str, Any]
    ) -> dict[str, Any]:
        """Carry out `/model WORDS`; the run params for the next prompts (`base` changed)."""
        from harness9.client.rpc import RpcError

        try:
            if not words.strip():
                await self._list_models(session_id)
                return base
            choice = model_choice(words)
            if session_id is None:
                return self._keep(choice, base)
            return await self._set(choice, session_id, base)
        except SlashError as exc:
            self.say(Text(str(exc), style="yellow"))
        except RpcError as exc:
            self.say(Text(f"/model: {exc.message}", style="red"))
        return base

    def _keep(self, choice: dict[str, str], base: dict[str, Any]) -> dict[str, Any]:
        """No session yet: the choice goes with the next runs as their params."""
        self._report("model", choice, f"model {model_label(choice)} (for the next run)")
        kept = {k: v for k, v in base.items() if k not in MODEL_KEYS}
        return {**kept, **choice}

    async def _set(
        self, choice: dict[str, str], session_id: str, base: dict[str, Any]
    ) -> dict[str, Any]:
        """The session's model from now on (`agent/setModel`); the runs stop naming one of
        their own, which would win over it."""
        answer = await self.client.request("agent/setModel", {**choice, "sessionId": session_id})
        set_to = answer if isinstance(answer, dict) else choice
        line = f"model {model_label(set_to)} (session {session_id})"
        self._report("agent/setModel", set_to, line)
        return {k: v for k, v in base.items() if k not in MODEL_KEYS}

    async def _list_models(self, session_id: str | None) -> None:
        params = {"sessionId": session_id} if session_id else {}
        answer = await self.client.request("agent/models", params)
        result = answer if isinstance(answer, dict) else {}
        if self.as_json:
            print(json.dumps({"agent/models": result}), flush=True)
        else:
            self.say(models_text(result))

    def _report(self, method: str, result: dict[str, Any], line: str) -> None:
        if self.as_json:
            print(json.dumps({method: result}), flush=True)
        else:
            self.say(Text(line, style="dim"))

