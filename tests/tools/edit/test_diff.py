"""The diff a file tool reports: counts over the whole change, the text cut at 400 lines."""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable

import pytest

from harness9.tools.edit.diff import (
    DIFF_SECONDS,
    MAX_DIFF_CHARS,
    MAX_REPORT_LINES,
    file_edit,
    unified_diff,
)


def test_counts_lines_even_when_their_text_looks_like_a_header() -> None:
    edit = file_edit("x.txt", "--- old\nkeep\n", "+++ new\nkeep\n", "disk")
    assert (edit.added, edit.removed, edit.diff_truncated) == (1, 1, False)
    assert edit.diff == (
        "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n---- old\n++++ new\n keep\n"
    )


def test_a_new_file_is_diffed_against_nothing_and_cut_at_400_lines() -> None:
    edit = file_edit("n.txt", None, "".join(f"{i}\n" for i in range(500)), "editor")
    assert (edit.added, edit.removed, edit.via, edit.diff_truncated) == (500, 0, "editor", True)
    assert len(edit.diff.splitlines()) == MAX_REPORT_LINES
    assert edit.diff.startswith("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,500 @@\n")


def test_a_missing_final_newline_is_marked() -> None:
    edit = file_edit("x.txt", "a\n", "a\nb", "disk")
    assert edit.diff.endswith("+b\n\\ No newline at end of file\n")


def test_a_long_file_diffs_as_difflib_does_with_the_same_line_numbers() -> None:
    before = "".join(f"line {i}\n" for i in range(5000))
    after = before.replace("line 10\n", "line ten\n").replace("line 4000\n", "")
    expected = "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), "a/l.txt", "b/l.txt"
    ))
    assert unified_diff("l.txt", before, after) == expected
    assert "@@ -3998,7 +3998,6 @@" in expected


@pytest.mark.parametrize("after", ["one\ntwo\n", "one\ntwo", "x" * 70_000, "l\n" * 40_000 + "end"])
def test_a_new_files_diff_is_what_difflib_makes_cut_the_same_way(after: str) -> None:
    whole = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                    for line in difflib.unified_diff([], after.splitlines(keepends=True),
                                                     "/dev/null", "b/n.txt"))
    expected = whole
    if len(whole) > MAX_DIFF_CHARS:
        cut = whole.rfind("\n", 0, MAX_DIFF_CHARS) + 1
        expected = whole[:cut] + f"[diff cut: {len(whole) - cut} more characters]\n"
    assert unified_diff("n.txt", None, after) == expected
    report = file_edit("n.txt", None, after, "disk")
    assert (report.added, report.removed) == (len(after.splitlines()), 0)
    assert report.diff == "".join(whole.splitlines(keepends=True)[:MAX_REPORT_LINES])


@pytest.mark.parametrize("make", [
    lambda i: f"{(i * 7919) % 151}\n",  # few distinct lines in a shuffled order
    lambda i: f"x{i % 100}\n",  # a short period
])
def test_a_rewrite_of_repeating_lines_is_reported_by_its_sizes_within_a_second(
    make: Callable[[int], str],
) -> None:
    before = "".join(make(i) for i in range(60_000))
    after = "".join(make(i * 3 + 1) for i in range(60_000))
    started = time.monotonic()
    preview = unified_diff("r.txt", before, after)
    report = file_edit("r.txt", before, after, "disk")
    assert time.monotonic() - started < 2 * DIFF_SECONDS + 1
    assert preview.endswith("(not diffed: 60000 lines before, 60000 after, too large to compare)\n")
    assert report.diff_truncated and report.diff.startswith("(not diffed:")
