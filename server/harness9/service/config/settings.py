"""Run settings: validation of each source, and the precedence that merges them.

Precedence: `agent/run` params > client settings (initializationOptions, didChangeConfiguration)
> environment variables > defaults. API keys never come over the wire: only from the environment.

Client settings are merged key by key as they arrive (`merge_client`): editors send an empty
didChangeConfiguration right after connecting, which must not erase the initializationOptions.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from harness9.langservers.language_config import LanguageServerConfig, parse_language_servers
from harness9.mcp.server_config import McpServerConfig, parse_mcp_servers
from harness9.process.guarantees import all_held
from harness9.process.sandbox import (
    DEFAULT_HIDE,
    SandboxMode,
    SandboxPolicy,
    availability,
    resolve_roots,
)
from harness9.provider.prices import prices_setting
from harness9.schema import Price
from harness9.service.state import config_dir, state_dir
from harness9.tools.approvals.policy import MODES, ApprovalPolicy, PolicyError

PROVIDERS = ("openai", "anthropic", "replay")
REASONING_EFFORTS = ("low", "medium", "high")
_log = logging.getLogger(__name__)
_WARNED: set[str] = set()  # each left-out root is warned about once per daemon
DEFAULT_SANDBOX = SandboxPolicy()


class EnvironmentGlobs(NamedTuple):
    """`toolEnvironment`: globs over the variable names tool processes get (see
    `harness9.process.tool_environment`, which applies them)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


NO_GLOBS = EnvironmentGlobs()


class SettingsError(ValueError):
    """A setting has the wrong type or value; `field` is its wire name."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Everything that shapes one run, after precedence has been applied."""

    provider: str | None = None
    model: str | None = None
    max_turns: int = 100
    tool_timeout_ms: int = 60_000
    thinking: bool = False
    reasoning_effort: str | None = None  # low | medium | high; None: the model's default
    stream: bool = True
    replay_file: str | None = None
    max_parallel_tools: int = 8
    max_subagents: int = 4  # child agents (task) of one run at once
    connect_timeout_ms: int = 10_000
    first_byte_timeout_ms: int = 120_000
    stream_idle_timeout_ms: int = 60_000
    tool_environment: EnvironmentGlobs = NO_GLOBS
    approvals: Mapping[str, Any] | None = None  # the `approvals` object, validated
    # The default mode: HARNESS9_APPROVALS, else (None) auto where the sandbox works, else ask.
    approvals_mode: str | None = None
    sandbox: SandboxPolicy = DEFAULT_SANDBOX  # workspace-write where a sandbox works
    checkpoints: bool = True  # snapshot the workspace around each tool batch
    context_window: int | None = None  # None: the model's known window, else 128000
    auto_compact: bool = True
    compact_at: float = 0.8  # the fraction of the window that triggers compaction
    edits_through_editor: bool = True  # edits of open documents go through the editor
    diagnostics_after_edit: bool = True  # an edit's result lists the problems it brought
    diagnostics_wait_ms: int = 2000  # how long the editor may take to report them
    instructions: bool = True  # read AGENTS.md files into the conversation
    remove_instruction_comments: bool = True  # a plain client's, once its run succeeded
    mcp_servers: tuple[McpServerConfig, ...] = ()  # daemon-wide: client settings only
    language_servers: tuple[LanguageServerConfig, ...] | None = None  # None: those on PATH
    prices: Mapping[str, Price] | None = None  # model-name prefix → price (over the table)

    def with_approval_mode(self, mode: str) -> RunSettings:
        """These settings in approval mode `mode` (the allow and deny rules kept)."""
        return replace(self, approvals={**(self.approvals or {}), "mode": mode})

    def approval_policy(self) -> ApprovalPolicy:
        """The policy of this run: the `approvals` setting over the default mode."""
        default = self.approvals_mode or ("auto" if self.auto_is_safe() else "ask")
        return ApprovalPolicy.from_setting(self.approvals or {}, default_mode=default)

    def tool_sandbox(self) -> SandboxPolicy:
        """The sandbox commands run in: `sandbox`, hiding our config and state folders too."""
        always = (str(config_dir()), str(state_dir()))
        return replace(self.sandbox, hide=(*self.sandbox.hide, *always))

    def auto_is_safe(self) -> bool:
        """Whether commands may run unasked by default: sandboxed, every guarantee held."""
        return self.sandbox_works() and all_held(availability())

    def sandbox_works(self) -> bool:
        """Whether bash runs in an OS sandbox (the setting is not off and one works here)."""
        return self.sandbox.mode is not SandboxMode.OFF and availability().works


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("must be a non-empty string")
    return value


def _provider(value: Any) -> str:
    if value not in PROVIDERS:
        raise TypeError(f"must be one of {', '.join(repr(p) for p in PROVIDERS)}, got {value!r}")
    return str(value)


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError(f"must be an integer ≥ 1, got {value!r}")
    return value


def _effort(value: Any) -> str:
    if value not in REASONING_EFFORTS:
        raise TypeError(f"must be one of {', '.join(repr(e) for e in REASONING_EFFORTS)}, "
                        f"got {value!r}")
    return str(value)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"must be true or false, got {value!r}")
    return value


def _fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise TypeError(f"must be a number between 0 and 1 (exclusive), got {value!r}")
    return float(value)


def _environment_globs(value: Any) -> EnvironmentGlobs:
    expected = 'must be {"include": [glob], "exclude": [glob]} (both optional)'
    if not isinstance(value, Mapping):
        raise TypeError(f"{expected}, got {value!r}")
    unknown = sorted(str(k) for k in value if k not in EnvironmentGlobs._fields)
    if unknown:
        raise TypeError(f"{expected}, got the unknown key {unknown[0]!r}")
    lists: dict[str, tuple[str, ...]] = {}
    for name in EnvironmentGlobs._fields:
        globs = value.get(name) or []
        if not isinstance(globs, list) or not all(isinstance(g, str) and g for g in globs):
            raise TypeError(
                f"{expected}; {name} must be a list of non-empty strings, got {globs!r}"
            )
        lists[name] = tuple(globs)
    return EnvironmentGlobs(**lists)


def _sandbox(value: Any) -> SandboxPolicy:
    if not isinstance(value, Mapping):
        raise TypeError(f"must be an object, got {type(value).__name__}")
    modes = [mode.value for mode in SandboxMode]
    mode = value.get("mode", SandboxMode.WORKSPACE_WRITE.value)
    if mode not in modes:
        raise TypeError(f"mode must be one of {', '.join(modes)}, got {mode!r}")
    network = value.get("network", False)
    if not isinstance(network, bool):
        raise TypeError(f"network must be true or false, got {network!r}")
    hide = _strings(value, "hide") if "hide" in value else DEFAULT_HIDE
    return SandboxPolicy(SandboxMode(mode), network, _writable_roots(value),
                         _strings(value, "protect"), hide)


def _writable_roots(value: Mapping[str, Any]) -> tuple[str, ...]:
    """`writableRoots` resolved once, here: missing ones and ones reached through a link are
    left out, each with one warning."""
    kept, warnings = resolve_roots(_strings(value, "writableRoots"))
    for warning in warnings:
        if warning not in _WARNED:
            _WARNED.add(warning)
            _log.warning("%s", warning)
    return kept


def _strings(value: Mapping[str, Any], key: str) -> tuple[str, ...]:
    items = value.get(key) or []
    if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
        raise TypeError(f"{key} must be a list of non-empty strings, got {items!r}")
    return tuple(items)


def _approvals(value: Any) -> Mapping[str, Any]:
    try:
        ApprovalPolicy.from_setting(value)
    except PolicyError as exc:
        raise TypeError(str(exc)) from None
    return dict(value)


# wire name → (RunSettings attribute, validator)
_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "provider": ("provider", _provider),
    "model": ("model", _string),
    "maxTurns": ("max_turns", _positive_int),
    "toolTimeoutMs": ("tool_timeout_ms", _positive_int),
    "thinking": ("thinking", _boolean),
    "reasoningEffort": ("reasoning_effort", _effort),
    "stream": ("stream", _boolean),
    "replayFile": ("replay_file", _string),
    "maxParallelTools": ("max_parallel_tools", _positive_int),
    "maxSubagents": ("max_subagents", _positive_int),
    "connectTimeoutMs": ("connect_timeout_ms", _positive_int),
    "firstByteTimeoutMs": ("first_byte_timeout_ms", _positive_int),
    "streamIdleTimeoutMs": ("stream_idle_timeout_ms", _positive_int),
    "approvals": ("approvals", _approvals),
    "checkpoints": ("checkpoints", _boolean),
    "contextWindow": ("context_window", _positive_int),
    "autoCompact": ("auto_compact", _boolean),
    "compactAt": ("compact_at", _fraction),
    "editsThroughEditor": ("edits_through_editor", _boolean),
    "diagnosticsAfterEdit": ("diagnostics_after_edit", _boolean),
    "diagnosticsWaitMs": ("diagnostics_wait_ms", _positive_int),
    "instructions": ("instructions", _boolean),
    "removeInstructionComments": ("remove_instruction_comments", _boolean),
    "sandbox": ("sandbox", _sandbox),
    "prices": ("prices", prices_setting),
}
# Daemon-wide: client settings only, never per `agent/run`.
_CLIENT_FIELDS = {
    **_FIELDS,
    "toolEnvironment": ("tool_environment", _environment_globs),
    "mcpServers": ("mcp_servers", parse_mcp_servers),
    "languageServers": ("language_servers", parse_language_servers),
}
WIRE_NAMES = tuple(_CLIENT_FIELDS)


def _parse(
    raw: Mapping[str, Any], table: Mapping[str, tuple[str, Callable[[Any], Any]]]
) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for wire, (attr, validate) in table.items():
        if wire not in raw or raw[wire] is None:
            continue
        try:
            overrides[attr] = validate(raw[wire])
        except TypeError as exc:
            raise SettingsError(wire, str(exc)) from None
    return overrides


def parse_overrides(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The run settings present in `raw`, validated; unknown keys are ignored, null is unset.
    A daemon-wide setting is refused: a run must not loosen what every run relies on."""
    for wire in _CLIENT_FIELDS.keys() - _FIELDS.keys():
        if raw.get(wire) is not None:
            raise SettingsError(wire, "is daemon-wide: set it in the client settings, not per run")
    return _parse(raw, _FIELDS)


def parse_lenient(raw: Any) -> tuple[dict[str, Any], list[str]]:
    """Client settings: keep every valid key, and describe each invalid one instead of failing."""
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [f"settings must be an object, got {type(raw).__name__}"]
    good: dict[str, Any] = {}
    problems: list[str] = []
    for wire in WIRE_NAMES:
        try:
            good.update(_parse({wire: raw.get(wire)}, _CLIENT_FIELDS))
        except SettingsError as exc:
            problems.append(str(exc))
    return good, problems


def merge_client(current: Mapping[str, Any], raw: Any) -> tuple[dict[str, Any], list[str]]:
    """The client settings after `raw` (initializationOptions or one didChangeConfiguration).

    Each valid key of `raw` replaces its earlier value; a key set to null is dropped, so it falls
    back to the environment or the default; an absent key, an empty or null `raw` and an invalid
    value change nothing (the invalid value is described in the returned problems).
    """
    good, problems = parse_lenient(raw)
    merged = {**current, **good}
    if isinstance(raw, Mapping):
        for wire, (attr, _) in _CLIENT_FIELDS.items():
            if wire in raw and raw[wire] is None:
                merged.pop(attr, None)
    return merged, problems


def client_section(settings: Any) -> Any:
    """The harness9 part of didChangeConfiguration's `settings`: its `harness9` section when it
    has one (null there means no change), else the object itself (clients that send it bare)."""
    if isinstance(settings, Mapping) and "harness9" in settings:
        return settings["harness9"]
    return settings


def from_environment(env: Mapping[str, str]) -> dict[str, Any]:
    """Settings from HARNESS9_PROVIDER, HARNESS9_MODEL, HARNESS9_REASONING_EFFORT,
    HARNESS9_REPLAY, HARNESS9_APPROVALS (the default approval mode), HARNESS9_SANDBOX (its mode),
    HARNESS9_MCP_SERVERS, HARNESS9_LANGUAGE_SERVERS (as JSON); invalid ones ignored."""
    raw = {
        "provider": env.get("HARNESS9_PROVIDER") or None,
        "model": env.get("HARNESS9_MODEL") or None,
        "reasoningEffort": env.get("HARNESS9_REASONING_EFFORT") or None,
        "replayFile": env.get("HARNESS9_REPLAY") or None,
        "mcpServers": _json(env.get("HARNESS9_MCP_SERVERS")),
        "languageServers": _json(env.get("HARNESS9_LANGUAGE_SERVERS")),
    }
    settings, _ = parse_lenient(raw)
    if env.get("HARNESS9_APPROVALS") in MODES:  # an unknown mode keeps the default
        settings["approvals_mode"] = env["HARNESS9_APPROVALS"]
    if env.get("HARNESS9_SANDBOX") in tuple(SandboxMode):
        settings["sandbox"] = SandboxPolicy(SandboxMode(env["HARNESS9_SANDBOX"]))
    return settings


def _json(text: str | None) -> Any:
    """The JSON value of an environment variable; None when it is unset or not JSON."""
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def resolve(*layers: Mapping[str, Any]) -> RunSettings:
    """Apply `layers` from lowest to highest precedence over the defaults."""
    known = {f.name for f in fields(RunSettings)}
    merged = RunSettings()
    for layer in layers:
        merged = replace(merged, **{k: v for k, v in layer.items() if k in known})
    return merged
