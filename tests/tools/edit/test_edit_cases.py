"""The table of edit cases, each run through the real tool on a real file, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from edit_cases import Case, arguments, endings, frame, indent, refusals, slips, text

from harness9.tools.edit.refusals import LEVELS, EditError
from harness9.tools.edit_file import EditFileTool

ALL: list[Case] = [
    *text.CASES, *indent.CASES, *frame.CASES, *endings.CASES, *refusals.CASES, *slips.CASES,
    *arguments.CASES,
]


def test_the_table_is_large_and_names_are_unique() -> None:
    assert len(ALL) >= 100
    assert len({case.name for case in ALL}) == len(ALL)


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
async def test_case(case: Case, workspace: Path) -> None:
    file = workspace / case.path
    file.write_bytes(case.file_bytes)
    tool = EditFileTool(workspace)
    arguments = json.dumps(
        {"path": case.path, "source_text": case.source, "target_text": case.target}
    )
    if case.expect_bytes is None:
        with pytest.raises(EditError) as refused:
            await tool.execute(arguments)
        assert (refused.value.kind, refused.value.level) == (case.kind, case.level)
        if case.message is not None:
            assert str(refused.value) == case.message
        assert file.read_bytes() == case.file_bytes
        return
    output = (await tool.execute(arguments)).text
    assert file.read_bytes() == case.expect_bytes
    assert output.splitlines()[0] == f"Edited {case.path}"
    if case.message is not None:
        assert output == case.message
    elif case.level == 1:
        assert output == f"Edited {case.path}"
    else:
        assert output.splitlines()[1].startswith(
            f"(matched at level {case.level}: {LEVELS[case.level]}"
        )
