"""What the file tools share: the workspace root, where they read and write, what the
session has seen."""

from __future__ import annotations

import os

from harness9.workspace.port import DiskWorkspace, Workspace
from harness9.workspace.seen_files import SeenFiles


class FileTool:
    """A tool on the files of one workspace: the disk unless a front-end plugs in another
    `Workspace`, and a stale guard of its own unless the session shares one."""

    def __init__(
        self,
        workdir: str | os.PathLike[str],
        *,
        workspace: Workspace | None = None,
        seen: SeenFiles | None = None,
    ) -> None:
        self._workdir = workdir
        self._workspace = workspace if workspace is not None else DiskWorkspace(workdir)
        self._seen = seen if seen is not None else SeenFiles()
