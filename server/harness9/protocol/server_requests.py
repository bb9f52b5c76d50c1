"""Server → client requests (the user's approval, the editor's problems and language servers),
and what each side announces in `initialize`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from harness9.protocol.agent_requests import Position
from harness9.protocol.json_schema import open_record
from harness9.protocol.shapes import ToolKindName


class ApprovalOption(TypedDict):
    """An answer the user may give."""

    id: Literal["allow_once", "allow_session", "reject"]
    label: str


class RequestApprovalParams(TypedDict):
    """`agent/requestApproval`: ask the user about a call. `path` and `diff` come with file
    tools (the change, computed before asking); `files` lists every file of a change of several;
    `reason` says why a call the mode would run is asked about."""

    runId: str
    sessionId: str
    turn: int
    toolCallId: str
    tool: str
    toolKind: ToolKindName
    arguments: Any
    title: str
    options: list[ApprovalOption]
    path: NotRequired[str]
    diff: NotRequired[str]
    reason: NotRequired[str]
    files: NotRequired[list[str]]


class RequestApprovalResult(TypedDict):
    """The user's answer; `message` (their reason) goes to the model; `content` is a file's whole
    new text as the user changed the proposed edit before allowing it."""

    decision: Literal["allow_once", "allow_session", "reject"]
    message: NotRequired[str]
    content: NotRequired[str]


class DiagnosticsParams(TypedDict):
    """`harness9/diagnostics`: the problems of a document (of its `version`, when given) or,
    asked with the workspace folder's URI, of every file; wait up to `timeoutMs`."""

    uri: str
    timeoutMs: int
    version: NotRequired[int]


@open_record
class DiagnosticsResult(TypedDict):
    """LSP diagnostics of the document, or `items` of every file the client knows."""

    diagnostics: NotRequired[list[dict[str, Any]]]
    version: NotRequired[int]
    items: NotRequired[list[dict[str, Any]]]


class LanguageQueryParams(TypedDict):
    """`harness9/languageQuery`: ask the editor's language servers (positions in the negotiated
    encoding)."""

    kind: Literal["definition", "references", "symbols", "hover", "rename"]
    uri: str
    position: NotRequired[Position]
    query: NotRequired[str]
    newName: NotRequired[str]


@open_record
class LanguageQueryResult(TypedDict):
    """`locations`, `symbols`, `hover` or `edit` (a WorkspaceEdit), by the query's kind."""


class ServerCapabilities(TypedDict):
    """`InitializeResult.capabilities.experimental.harness9`."""

    protocolVersion: str
    methods: list[str]
    progressKinds: list[str]
    approvalContent: NotRequired[bool]
    restorePreview: NotRequired[bool]
    pathMap: NotRequired[bool]


class PathMapping(TypedDict):
    """One entry of the `pathMap` client setting: the editor's path or URI prefix (`local`)
    and the daemon's (`remote`) for the same folder."""

    local: str
    remote: str


class ClientCapabilities(TypedDict):
    """`InitializeParams.capabilities.experimental.harness9`: what the client can answer."""

    approvalRequests: NotRequired[bool]
    diagnostics: NotRequired[bool]
    languageFeatures: NotRequired[list[str]]
