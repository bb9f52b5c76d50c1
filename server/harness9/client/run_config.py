"""What a `harness9 run` asks for: the workspace, the provider and the `agent/run` params."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NO_PROVIDER = """harness9: no model provider is configured.

Set the API key of one provider in the environment:
  OpenAI:     OPENAI_API_KEY=...
  Anthropic:  ANTHROPIC_API_KEY=...
and, for another compatible server, its base URL (OPENAI_BASE_URL or ANTHROPIC_BASE_URL;
the default is the service's own). Optionally:
  HARNESS9_PROVIDER=openai|anthropic   which provider to use (or --provider)
  HARNESS9_MODEL=<name>                which model to ask for (or --model)

Or try harness9 offline, with a scripted model on a sample project:
  harness9 run --demo
"""

NO_REPLAY_FILE = (
    'harness9: provider "replay" needs a script: pass --replay FILE (or set HARNESS9_REPLAY).\n'
)


class UsageError(Exception):
    """The command line or environment cannot make a run; the message is shown as is."""


@dataclass(slots=True)
class RunOptions:
    """Everything one `harness9 run` needs, resolved from the command line and environment."""

    workspace: Path
    prompt: str
    provider: str
    init_options: dict[str, Any] = field(default_factory=dict)
    run_params: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    json: bool = False
    verbose: bool = False
    demo: bool = False
    interactive: bool = False
    approvals: str | None = None  # the mode asked for on the command line, if any
    resume: str | None = None  # --resume: a session id, or "" for the workspace's newest
    daemon_command: list[str] | None = None  # --remote: ssh to the daemon (None: a local one)


def resolve_provider(explicit: str | None, env: Mapping[str, str]) -> str | None:
    """The provider the daemon will use: the flag, `HARNESS9_PROVIDER`, else the first API key."""
    if explicit:
        return explicit
    if env.get("HARNESS9_PROVIDER"):
        return env["HARNESS9_PROVIDER"]
    if env.get("OPENAI_API_KEY"):
        return "openai"
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    return None


# A session id as the daemon makes them (`s-` and 12 hex digits): what `--resume` takes as one.
_SESSION_ID = re.compile(r"s-[0-9a-f]{6,32}")


def resume_or_prompt(args: argparse.Namespace) -> None:
    """`--resume` takes an optional session id, so `run --resume "now the lint errors"` would
    read the prompt as one: a value that is not shaped like a session id is the prompt (before
    any other prompt words), and the newest session is resumed."""
    value = getattr(args, "resume", None)
    if not value or _SESSION_ID.fullmatch(value):
        return
    args.prompt = value if args.prompt is None else f"{value} {args.prompt}"
    args.resume = ""


def options_from_args(
    args: argparse.Namespace, prompt: str, env: Mapping[str, str] | None = None
) -> RunOptions:
    """Build the run's options; raises `UsageError` with the text to show."""
    env = dict(os.environ if env is None else env)
    replay = os.path.abspath(args.replay) if args.replay else None
    provider = resolve_provider("replay" if replay else _asked_provider(args), env)
    remote = _remote(args, env)
    if provider is None and remote is None:
        raise UsageError(NO_PROVIDER)
    if provider == "replay":
        replay = replay or env.get("HARNESS9_REPLAY")
        if not replay:
            raise UsageError(NO_REPLAY_FILE)
        env["HARNESS9_REPLAY"] = replay
    workspace = Path(args.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise UsageError(f"harness9: the workspace {workspace} is not a directory.\n")
    # A remote daemon without a provider named here uses its own machine's default.
    init: dict[str, Any] = {"provider": provider} if provider else {}
    if remote is not None:  # the local folder stands for the remote one, on every message
        init["pathMap"] = [{"local": str(workspace), "remote": remote[1]}]
    if replay:
        init["replayFile"] = replay
    approvals = approval_mode(args)
    if approvals is not None:
        init["approvals"] = {"mode": approvals}
    return RunOptions(
        workspace=workspace,
        prompt=prompt,
        provider=provider or "",
        init_options=init,
        run_params=_run_params(args, prompt, provider),
        env=env,
        json=args.json,
        verbose=args.verbose,
        interactive=bool(getattr(args, "interactive", False)),
        demo=bool(getattr(args, "demo", False)),
        approvals=approvals,
        resume=getattr(args, "resume", None),
        daemon_command=None if remote is None else remote[0],
    )


def _remote(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[list[str], str] | None:
    """For `--remote HOST:PATH`: the command that starts the daemon there, and PATH."""
    if not getattr(args, "remote", None):
        return None
    from harness9.client.remote import RemoteError, daemon_command, parse_target

    try:
        host, path = parse_target(args.remote)
    except RemoteError as exc:
        raise UsageError(str(exc)) from None
    return daemon_command(host, env), path


def approval_mode(args: argparse.Namespace) -> str | None:
    """The approval mode the command line asks for: `--yes` and the demo run yolo."""
    if getattr(args, "yes", False) or getattr(args, "demo", False):
        return "yolo"
    mode: str | None = getattr(args, "approvals", None)
    return mode


def _asked_provider(args: argparse.Namespace) -> str | None:
    """`--provider`, else the provider `--model PROVIDER:ID` names; raises `UsageError` when
    they differ."""
    from harness9.client.slash import split_model

    named, _ = split_model(args.model or "")
    if args.provider and named and named != args.provider:
        raise UsageError(
            f"harness9: --model {args.model} names provider {named}, --provider {args.provider}.\n"
        )
    explicit: str | None = args.provider or named
    return explicit


def _run_params(args: argparse.Namespace, prompt: str, provider: str | None) -> dict[str, Any]:
    from harness9.client.slash import split_model

    params: dict[str, Any] = {"prompt": prompt, **({"provider": provider} if provider else {})}
    if args.model:
        params["model"] = split_model(args.model)[1]
    if getattr(args, "reasoning_effort", None):
        params["reasoningEffort"] = args.reasoning_effort
    if args.session:
        params["sessionId"] = args.session
    if args.max_turns:
        params["maxTurns"] = args.max_turns
    if args.thinking:
        params["thinking"] = True
    if args.no_stream:
        params["stream"] = False
    if getattr(args, "files", None):
        params["context"] = list(args.files)
    if getattr(args, "worktree", False):
        params["isolation"] = "worktree"
    if getattr(args, "plan", False):
        params["plan"] = True
    if getattr(args, "execute_plan", False):
        params["executePlan"] = True
        if not prompt:  # the daemon's own: "Carry out the plan."
            del params["prompt"]
    return params
