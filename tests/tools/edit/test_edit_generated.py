"""Edits generated the way models write them, judged by an oracle that knows the intended file.

A few hundred seeded examples go through `apply_edit` (the same ones every run, so a failure
reproduces) and a handful of them through the real tool on real files. Every applied edit must
equal the intended file (see `edit_gen.calls` for what else is accepted); refusals are allowed
and must leave the file as it was. The benchmark case `edit_generated` runs 10,000 and reports
the refusal rate per slip.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from edit_gen.run import Survey, describe, survey

from harness9.tools.edit.refusals import EditError
from harness9.tools.edit_file import EditFileTool, apply_edit

COUNT = 300
THROUGH_THE_TOOL = 12

# Generating the examples takes ~15 s of CPU: more than the default 60 s on a busy machine.
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def found() -> Survey:
    return survey(apply_edit, EditError, COUNT, keep=THROUGH_THE_TOOL)


def test_no_generated_edit_is_wrong(found: Survey) -> None:
    assert found.total > COUNT // 2
    assert not found.failures, "\n\n".join(describe(*failure) for failure in found.failures[:3])
    assert found.applied["all"] > found.total // 2, found.table()


async def test_generated_edits_through_the_tool(found: Survey, tmp_path: Path) -> None:
    tool = EditFileTool(tmp_path)
    file = tmp_path / "file.txt"
    for example in found.kept:
        file.write_bytes(example.content.encode())
        arguments = json.dumps(
            {"path": "file.txt", "source_text": example.source, "target_text": example.target}
        )
        try:
            await tool.execute(arguments)
        except EditError:
            assert file.read_bytes() == example.content.encode()
            continue
        assert file.read_bytes() == apply_edit(
            example.content, example.source, example.target
        ).content.encode(), describe(example, "the tool wrote another file")
