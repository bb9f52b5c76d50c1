"""Plan mode and carrying out a plan: the settings a run gets and what its prompt tells the model.

In plan mode (approval mode `plan`, or `agent/run {plan: true}` for one run) the model may read,
run commands confined read-only by the OS sandbox (where one works), and record its plan; it
is told so with the prompt. `executePlan` runs in the session's normal mode (plan is the only
mode it leaves), with the stored plan restated. A left-over steer runs in its run's mode.
"""

from __future__ import annotations

from dataclasses import replace

from harness9.engine.compaction import PLAN_HEADER
from harness9.schema import ToolKind
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunRequest
from harness9.service.sessions.session import Session
from harness9.tools.approvals.policy import SILENT_MODES

PLAN_MODE = "plan"
PLAN_MODE_NOTE = (
    "[Plan mode: investigate with the read-only tools, then record your plan with update_plan "
    "and end by summing it up. Change nothing: edits are refused and commands run read-only. "
    "The user will review the plan and tell you to go.]"
)


def run_settings(request: RunRequest, session: Session) -> RunSettings:
    """The settings of a run on `session`: the mode of the run itself when it has one (a
    left-over steer keeps its run's); else the session's own mode over the request's, plan
    mode for a `plan` run, and for `execute_plan` the session's normal mode: plan mode is the
    only one it leaves."""
    settings = request.settings
    if request.mode is not None:
        return settings.with_approval_mode(request.mode)
    if request.execute_plan:
        settings = _normal(settings)
    own = session.approval_mode  # chosen for this session alone
    if own is not None and not (request.execute_plan and own == PLAN_MODE):
        settings = settings.with_approval_mode(own)
    if request.plan:
        settings = settings.with_approval_mode(PLAN_MODE)
    return settings


def planning(settings: RunSettings) -> bool:
    """Whether a run with these settings only plans."""
    return settings.approval_policy().mode == PLAN_MODE


def plan_mode_kinds(settings: RunSettings) -> frozenset[ToolKind]:
    """The kinds of built-in tools a planning run is offered: reads, the plan, and commands
    where the OS sandbox can keep them read-only."""
    kinds = {ToolKind.READ, ToolKind.THINK}
    if settings.sandbox_works():
        kinds.add(ToolKind.EXECUTE)
    return frozenset(kinds)


def command_sandbox(settings: RunSettings) -> RunSettings:
    """The settings with the sandbox the run's commands get: read-only, `writableRoots`
    ignored, in the modes that change nothing (plan, read-only: a command an allow rule lets
    run there changes nothing either); as set otherwise."""
    if settings.approval_policy().mode in SILENT_MODES and settings.sandbox_works():
        return replace(settings, sandbox=settings.sandbox.read_only())
    return settings


def prompt_for(prompt: str, request: RunRequest, session: Session, settings: RunSettings) -> str:
    """What the model reads for the run's prompt: plan mode's note after a planning prompt;
    the stored plan after the prompt that carries it out."""
    if planning(settings):
        return f"{prompt}\n\n{PLAN_MODE_NOTE}"
    if request.execute_plan and session.plan is not None:
        return f"{prompt}\n\n{PLAN_HEADER}\n{session.plan.checklist()}"
    return prompt


def _normal(settings: RunSettings) -> RunSettings:
    """`settings` in their normal mode: the setting's own, unless it is plan mode, which
    gives way to the default (auto where the sandbox works, else ask)."""
    if (settings.approvals or {}).get("mode") == PLAN_MODE:
        settings = replace(settings, approvals={
            key: value for key, value in (settings.approvals or {}).items() if key != "mode"
        })
    if settings.approvals_mode == PLAN_MODE:
        settings = replace(settings, approvals_mode=None)
    return settings
