"""edit_file on 20,000-line files: every level edits the right lines, in milliseconds."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness9.schema import ToolError
from harness9.tools.edit_file import EditFileTool, apply_edit

LINES = 20_000
# Far above the ~10 ms an edit takes here, so a slow machine does not fail the suite, yet low
# enough to catch an accidentally quadratic level.
BOUND_MS = 250.0


def python_file() -> str:
    out = []
    for i in range(LINES):
        if i % 50 == 0:
            out.append(f"def function_{i}(value, scale=1):")
        else:
            out.append(f"    value_{i} = compute(value, {i} * scale)  # step {i % 7}")
    return "\n".join(out) + "\n"


BASE = python_file()
BLOCK = "\n".join(BASE.splitlines()[19_000:19_004])  # def + 3 body lines
NEW = "def function_19000(value, scale=2):\n    pass"


def _cases() -> dict[str, tuple[bytes, str, str, bytes, int]]:
    """name → (file bytes, source, target, expected bytes, level)."""
    plain = BASE.encode()
    edited = BASE.replace(BLOCK, NEW).encode()
    crlf = BASE.replace("\n", "\r\n").encode()
    crlf_edited = BASE.replace(BLOCK, NEW).replace("\n", "\r\n").encode()
    tabbed = "\n".join(("\t" if line.startswith(" ") else "") + line.strip()
                       for line in BLOCK.splitlines())
    tab_target = NEW.replace("    ", "\t")
    curly = BASE.replace("# step 3\n", "# it’s step 3\n", 1)
    return {
        "L1": (plain, BLOCK, NEW, edited, 1),
        "L2": (crlf, BLOCK, NEW, crlf_edited, 2),
        "L3": (plain, "\n\n" + BLOCK + "  \n\n", "\n" + NEW + "\n\n", edited, 3),
        "L4": (plain, tabbed, tab_target, edited, 4),
        "L5": (curly.encode(), "    value_3 = compute(value, 3 * scale)  # it's step 3",
               "    value_3 = 0  # it's step 3",
               curly.replace("compute(value, 3 * scale)", "0").encode(), 5),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
async def test_each_level_on_a_big_file(workspace: Path, name: str) -> None:
    data, source, target, expected, level = CASES[name]
    (workspace / "big.py").write_bytes(data)
    arguments = json.dumps({"path": "big.py", "source_text": source, "target_text": target})
    output = (await EditFileTool(workspace).execute(arguments)).text
    assert (workspace / "big.py").read_bytes() == expected
    assert output.startswith("Edited big.py")
    assert (f"(matched at level {level}" in output) == (level > 1)
    text = data.decode()
    assert _best_ms(lambda: apply_edit(text, source, target)) < BOUND_MS


def test_a_miss_on_a_big_file_is_fast_and_points_at_the_closest_lines() -> None:
    source = "    value_19001 = compute(value, 19001 * scale)  # step 9\n    missing()"

    def attempt() -> None:
        with pytest.raises(ToolError) as refused:
            apply_edit(BASE, source, "x")
        assert "\n19002|     value_19001 = compute(value, 19001 * scale)  # step 3\n" in str(
            refused.value
        )

    assert _best_ms(attempt) < BOUND_MS * 2


def test_an_ambiguous_line_on_a_big_file_lists_the_first_places() -> None:
    with pytest.raises(ToolError) as refused:
        apply_edit(BASE, "def function_", "def fn_")
    assert "matches 400 places (level 1, exact), starting at lines 1, 51, 101," in str(
        refused.value
    )
    assert "and 390 more" in str(refused.value)


def _best_ms(action: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        action()
        best = min(best, (time.perf_counter() - started) * 1000)
    return best
