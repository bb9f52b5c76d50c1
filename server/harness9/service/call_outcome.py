"""What a tool call came to, in the protocol's field names: what `tool_completed` and
`tool_failed` carry besides the output, and what a session keeps of each call so that a chat
shown again looks as it did live (an edit's diff and counts, a command's exit, an approval)."""

from __future__ import annotations

from typing import Any

from harness9.engine.events import ApprovalResolved, ToolFinished
from harness9.schema import (
    ChangedFile,
    ChildRun,
    FileChanges,
    FileEdit,
    Problem,
    ProcessExit,
    ToolKind,
    ToolResult,
)


def result_fields(result: ToolResult) -> dict[str, Any]:
    """A result's fields besides its output: `bytes`, `truncated`, `durationMs`, `reason` and
    `message` (a failure's, the message when there is one), and what the call changed, how its
    command ended, its sandbox and problems
    (`diagnostics`, and `diagnosticsSource`: whose language servers were asked)."""
    fields: dict[str, Any] = {
        "bytes": result.bytes,
        "truncated": result.truncated,
        "durationMs": round(result.duration_ms, 1),
    }
    if result.is_error:
        fields["reason"] = result.failure.value if result.failure else "error"
        if result.message:
            fields["message"] = result.message
    if result.changes is not None:
        fields.update(wire_changes(result.changes))
    if result.edit is not None:
        fields.update(wire_edit(result.edit))
    if result.exit is not None:
        fields.update(wire_exit(result.exit))
    if result.sandbox is not None:
        fields["sandbox"] = result.sandbox
    if result.problems is not None:
        fields["diagnostics"] = [wire_problem(p) for p in result.problems]
    if result.problems_source is not None:
        fields["diagnosticsSource"] = result.problems_source
    if result.child is not None:
        fields.update(child_fields(result.child))
    return fields


def child_fields(child: ChildRun) -> dict[str, Any]:
    """A task call's child run: its `agent`, `usage` and (when its prices are known)
    `costUsd`."""
    usage = child.usage
    fields: dict[str, Any] = {"agent": child.agent, "usage": {
        "inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens,
        "cachedInputTokens": usage.cached_input_tokens,
        "cacheWriteInputTokens": usage.cache_write_tokens}}
    if child.cost_usd is not None:
        fields["costUsd"] = round(child.cost_usd, 6)
    return fields


def outcome(finished: ToolFinished, approval: ApprovalResolved | None,
            started: bool = True, asked: bool = False,
            kind: ToolKind | None = None) -> dict[str, Any]:
    """What a session keeps of a finished call: `status` (`completed`, or why it failed:
    `error`, `timeout`, `rejected`, `denied`, `cancelled`, …), its tool's `kind` (as the
    call was shown live), the result's fields, the
    `approval` that decided it (`{decision, by, rule?}`) when one was recorded, `asked: true`
    when the user was asked and never answered (the run was cancelled meanwhile), and
    `started: false` for a call that never ran (refused, or cancelled while it waited)."""
    fields = result_fields(finished.result)
    status = fields.pop("reason", "completed")
    record: dict[str, Any] = {"status": status, "turn": finished.turn, **fields}
    if kind is not None:
        record["kind"] = kind.value
    if not started:
        record["started"] = False
    if asked and approval is None:
        record["asked"] = True
    if approval is not None:
        record["approval"] = {"decision": approval.decision, "by": approval.by}
        if approval.rule is not None:
            record["approval"]["rule"] = approval.rule
    return record


def wire_problem(problem: Problem) -> dict[str, Any]:
    """A problem on the wire: `{path, line, column, severity, message, source?, code?}`."""
    fields: dict[str, Any] = {"path": problem.path, "line": problem.line,
                              "column": problem.column, "severity": problem.severity,
                              "message": problem.message}
    if problem.source:
        fields["source"] = problem.source
    if problem.code:
        fields["code"] = problem.code
    return fields


def wire_exit(ended: ProcessExit) -> dict[str, Any]:
    """How a command ended: `exitCode`, or `signal` (its name) when a signal killed it."""
    if ended.code is not None:
        return {"exitCode": ended.code}
    return {"signal": ended.signal}


def exit_of(fields: dict[str, Any] | None) -> ProcessExit | None:
    """How a command ended, from the fields `wire_exit` gave (a stored call's outcome); None
    when they tell nothing (no command, or an older session)."""
    code, signal = (fields or {}).get("exitCode"), (fields or {}).get("signal")
    if isinstance(code, int) and not isinstance(code, bool):
        return ProcessExit(code=code)
    return ProcessExit(signal=signal) if isinstance(signal, str) else None


def wire_edit(edit: FileEdit) -> dict[str, Any]:
    """What a file tool changed: `path`, `diff`, `added`, `removed`, `via`, and
    `diffTruncated: true` when the diff was cut."""
    fields: dict[str, Any] = {
        "path": edit.path, "diff": edit.diff, "added": edit.added, "removed": edit.removed,
        "via": edit.via,
    }
    if edit.diff_truncated:
        fields["diffTruncated"] = True
    return fields


def wire_changed_files(files: tuple[ChangedFile, ...]) -> list[dict[str, str]]:
    """Changed files on the wire: `[{"path", "status"}]`."""
    return [{"path": f.path, "status": f.status} for f in files]


def wire_changes(changes: FileChanges) -> dict[str, Any]:
    """`changedFiles`, and `changedFilesSharedWith` (the calls that ran at the same time, whose
    changes may be among them) when there were any."""
    fields: dict[str, Any] = {"changedFiles": wire_changed_files(changes.files)}
    if changes.shared_with:
        fields["changedFilesSharedWith"] = list(changes.shared_with)
    return fields
