"""The diff a file tool reports: counts over the whole change, the text cut at 400 lines."""

from __future__ import annotations

import difflib

from harness9.tools.edit.diff import MAX_REPORT_LINES, file_edit, unified_diff


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
