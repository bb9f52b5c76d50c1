"""What an edit call writes, settled once, before it is decided.

An edit call's path is resolved once (`decide_path`): the policy decides on where it leads, and
the write goes exactly there or fails (`workspace.decided`), so a link swapped in while the
user is asked, or while another call runs, cannot redirect it. A call that writes files it
learns only by asking (`PlansChanges`: a rename's edit) works out its change first: every file
of it is resolved and decided on (each must pass the rules and the protected-path check), the
question lists them all, and the call then writes that change and no other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, cast

from harness9.schema import ToolError, ToolKind
from harness9.tools.approvals.subjects import PathSpellings, spell_path, spelled_as_decided
from harness9.tools.contract import PLANNED, BaseTool, ChangePlan, PlansChanges
from harness9.workspace.decided import Decided, decide_path, deciding


@dataclass(frozen=True, slots=True)
class Targets:
    """The files a call was decided on: each resolved once (`decided`), their spellings for
    the rules (`files`; None: the policy resolves the call's path itself), and the change of a
    tool that plans one (`plan`)."""

    decided: tuple[Decided, ...] = ()
    files: tuple[PathSpellings, ...] | None = None
    plan: ChangePlan | None = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Let the call's writes go where it was decided, for the block."""
        token = PLANNED.set(self.plan)
        try:
            with deciding(self.decided):
                yield
        finally:
            PLANNED.reset(token)


NOTHING = Targets()


def path_targets(kind: ToolKind, arguments: dict[str, Any], root: str | None) -> Targets:
    """An edit call's `path`, resolved once (nothing for other calls, or without a
    workspace)."""
    path = arguments.get("path")
    if kind is not ToolKind.EDIT or not isinstance(path, str) or root is None:
        return NOTHING
    return _of_paths((path,), root)


async def planned_targets(
    tool: BaseTool, arguments: dict[str, Any], root: str | None
) -> Targets | None:
    """The change of a tool that plans one, and each file of it resolved once; None for a tool
    that does not plan. The tool's error (a rename refused) is the call's."""
    # Not isinstance with the runtime-checkable protocol: that costs microseconds every call.
    plan_of = getattr(tool, "plan", None)
    if not callable(plan_of):
        return None
    plan = await cast(PlansChanges, tool).plan(arguments)
    if root is None:
        return Targets(plan=plan)
    return replace(_of_paths(plan.files, root), plan=plan)


def _of_paths(paths: Iterable[str], root: str) -> Targets:
    decided: list[Decided] = []
    files: list[PathSpellings] = []
    for path in paths:
        try:
            pinned = decide_path(root, path)
        except (ToolError, OSError):
            # Outside the workspace or unusable: the rules see that (no rule allows it), and
            # the write refuses it with its own error.
            files.append(spell_path(path, root))
            continue
        decided.append(pinned)
        files.append(spelled_as_decided(pinned, root))
    return Targets(tuple(decided), tuple(files))
