"""The built-in commands' answers that list things (`/help`, `/model`) or point elsewhere
(`/plan`), as plain text (a terminal, the LSP front-end's clients) or as Markdown for a front-end
whose client renders it (ACP): there plain lines would run together into one paragraph."""

from __future__ import annotations

from collections.abc import Sequence

from harness9.provider.model_catalog import ModelInfo
from harness9.provider.provider_errors import ProviderError
from harness9.service.commands.catalog import Command
from harness9.service.config.model_choice import ModelChoice
from harness9.service.run_request import CommandView

MODEL_USAGE = "/model [provider:]model [low|medium|high]"


def help_text(commands: Sequence[Command], view: CommandView) -> str:
    """`/help`: the commands the front-end offers, with their hints and descriptions."""
    shown = [command for command in commands if command.name not in view.hidden]
    if not view.markdown:
        lines = ["Commands (type them at the start of a prompt):"]
        for command in shown:
            origin = "" if command.source == "builtin" else f"  [{command.source}]"
            lines.append(f"  {_usage(command)} — {command.description}{origin}")
        lines.append("Start a prompt with a space to send text that begins with / to the model.")
        return "\n".join(lines)
    lines = ["**Commands** (type them at the start of a prompt):", ""]
    for command in shown:
        origin = "" if command.source == "builtin" else f" *({command.source})*"
        lines.append(f"- `{_usage(command)}` — {command.description}{origin}")
    lines += ["", "Start a prompt with a space to send text that begins with `/` to the model."]
    return "\n".join(lines)


def models_text(
    models: Sequence[ModelInfo], errors: Sequence[tuple[str, ProviderError]],
    current: ModelChoice | None, view: CommandView,
) -> str:
    """`/model`: the models of the configured services, the one in use marked, and each
    service that could not list its models."""
    chosen = (current.provider, current.model) if current is not None else None
    effort = f", reasoning effort {current.reasoning_effort}" if (
        current is not None and current.reasoning_effort) else ""
    name = f"{current.provider}:{current.model}" if current is not None else ""
    if not view.markdown:
        lines = [f"Models ({MODEL_USAGE} chooses one):"]
        lines += [f" {'*' if (m.provider, m.id) == chosen else ' '} {m.provider}:{m.id}"
                  for m in models]
        lines += [f"   ({provider}: {error.message})" for provider, error in errors]
        lines += [f"In use: {name}{effort}."] if current is not None else []
        return "\n".join(lines)
    lines = [f"**Models** (`{MODEL_USAGE}` chooses one):", ""]
    lines += [f"- `{m.provider}:{m.id}`{' (in use)' if (m.provider, m.id) == chosen else ''}"
              for m in models]
    for provider, error in errors:
        lines += ["", f"{provider} could not list its models: {error.message}"]
    lines += ["", f"In use: `{name}`{effort}."] if current is not None else []
    return "\n".join(lines)


def plan_text(view: CommandView) -> str:
    """`/plan` without a prompt: the session is in plan mode now."""
    if view.markdown:  # the client carries a plan out by choosing another mode
        return ("**Plan mode**: the next prompts investigate and plan without changing "
                "anything. Choose another mode (or `/approvals auto`) to carry the plan out.")
    return ("Plan mode: the next prompts investigate and plan without changing anything. Run "
            "with executePlan (or /approvals auto) to carry it out.")


def _usage(command: Command) -> str:
    return f"/{command.name}{' ' + command.argument_hint if command.argument_hint else ''}"
