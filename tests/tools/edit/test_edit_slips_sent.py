"""Slips of real model edits (reported against many editing tools) that `edit_file` once wrote
wrongly or as sent: each is now read right or refused with what to send instead."""

from __future__ import annotations

import pytest

from harness9.tools.edit.refusals import EditError
from harness9.tools.edit_file import apply_edit

pytestmark = pytest.mark.timeout(30)

WRAP_FILE = "def f():\n    a()\n    b()\n    c()\n"
WRAPPED = "def f():\n    if enabled:\n        a()\n        b()\n    c()\n"


def _refused(content: str, source: str, target: str) -> EditError:
    with pytest.raises(EditError) as refused:
        apply_edit(content, source, target)
    return refused.value


def test_a_wrap_sent_again_is_already_applied() -> None:
    source, target = "    a()\n    b()", "    if enabled:\n        a()\n        b()"
    assert apply_edit(WRAP_FILE, source, target).content == WRAPPED
    refused = _refused(WRAPPED, source, target)
    assert refused.kind == "already_applied"
    assert "line 2" in refused.reason


def test_an_insertion_sent_again_is_already_applied() -> None:
    source, target = "    a()", "    a()\n    added()"
    once = apply_edit(WRAP_FILE, source, target).content
    assert _refused(once, source, target).kind == "already_applied"


def test_a_change_sent_again_is_already_applied() -> None:
    once = apply_edit(WRAP_FILE, "    b()", "    b(2)").content
    assert _refused(once, "    b()", "    b(2)").kind == "already_applied"


def test_a_deletion_from_the_blank_line_above_takes_the_blank_line() -> None:
    content = "def f():\n    a()\n\n    b()\n    c()\nd()\n"
    assert apply_edit(content, "\n    b()\n    c()", "").content == "def f():\n    a()\nd()\n"


def test_an_extra_blank_line_in_the_source_keeps_the_insertion_where_it_was_typed() -> None:
    content = "def f():\n    a()\n\n    b()\n"
    result = apply_edit(content, "    a()\n\n\n    b()", "    a()\n\n\n    new()\n    b()")
    assert result.content in ("def f():\n    a()\n\n    new()\n    b()\n",
                              "def f():\n    a()\n\n\n    new()\n    b()\n")


def test_curly_quotes_typed_in_some_places_of_a_line_take_the_file_s() -> None:
    content = 'x = 1\nlabel = g("b", "c")\n'
    result = apply_edit(content, 'label = g("b", "c")', 'label = g("b", "c”, “d")')
    assert result.content == 'x = 1\nlabel = g("b", "c", "d")\n'


def test_curly_quotes_of_a_curly_source_are_folded_in_its_new_text_too() -> None:
    content = 'x = 1\nlabel = g("b", "c")\n'
    result = apply_edit(content, "label = g(“b”, “c”)", "label = g(“b”, “c”, “d”)")
    assert result.content == 'x = 1\nlabel = g("b", "c", "d")\n'


def test_nested_curly_quotes_in_a_new_string_are_kept() -> None:
    content = 'x = 1\nlabel = g("b")\n'
    result = apply_edit(content, 'label = g("b")', 'label = g("He said “hi”")')
    assert result.content == 'x = 1\nlabel = g("He said “hi”")\n'


def test_doubled_backslashes_in_the_source_and_a_target_typed_right() -> None:
    content = "x = 1\npath = 'C:\\tools\\bin'\n"
    result = apply_edit(content, "path = 'C:\\\\tools\\\\bin'", "path = 'C:\\tools\\new'")
    assert result.content == "x = 1\npath = 'C:\\tools\\new'\n"


def test_doubled_backslashes_in_a_source_with_double_quotes() -> None:
    content = 'x = 1\npath = r"\\d+\\s"\n'
    result = apply_edit(content, 'path = r"\\\\d+\\\\s"', 'path = r"\\\\w+\\\\s"')
    assert result.content == 'x = 1\npath = r"\\w+\\s"\n'


@pytest.mark.parametrize("dots", ["...", "…"])
def test_a_bare_ellipsis_line_is_refused(dots: str) -> None:
    content = "int f() {\n    a();\n    b();\n    c();\n}\n"
    refused = _refused(content, "    a();\n    b();\n    c();", f"    a2();\n    {dots}")
    assert refused.kind == "elision"


def test_a_python_ellipsis_body_is_still_code() -> None:
    content = "class P:\n    def f(self):\n        pass\n"
    result = apply_edit(content, "        pass", "        ...")
    assert result.content == "class P:\n    def f(self):\n        ...\n"


def test_a_fenced_target_is_read_without_its_fence() -> None:
    content = "def f():\n    a()\n    b()\n"
    result = apply_edit(content, "    a()\n    b()", "```python\n    a()\n    c()\n```")
    assert result.content == "def f():\n    a()\n    c()\n"


def test_a_fenced_source_and_target_are_read_without_their_fences() -> None:
    content = "def f():\n    a()\n    b()\n"
    result = apply_edit(content, "```\n    a()\n    b()\n```", "```\n    a()\n    c()\n```")
    assert result.content == "def f():\n    a()\n    c()\n"


def test_html_entities_in_a_target_are_refused() -> None:
    content = "def f():\n    a()\n"
    refused = _refused(content, "    a()", "    a() if x &lt; 1 else 0")
    assert refused.kind == "sent_slip"
    assert "&lt;" in refused.reason


@pytest.mark.parametrize("typo", ["\u2192", "\u2260", "\u2014"])
def test_typographic_operators_in_code_are_refused(typo: str) -> None:
    content = "def f():\n    a = b(1)\n"
    refused = _refused(content, "    a = b(1)", f"    a = b(1) {typo} 1")
    assert refused.kind == "sent_slip"


def test_a_dash_in_a_comment_is_prose() -> None:
    content = "def f():\n    a = b(1)\n"
    result = apply_edit(content, "    a = b(1)", "    a = b(1)  # one \u2014 the first")
    assert result.content == "def f():\n    a = b(1)  # one \u2014 the first\n"


def test_a_diff_marker_column_is_read_without_it() -> None:
    content = "def f():\n    a()\n    b()\n"
    result = apply_edit(content, "    a()\n    b()", "     a()\n-    b()\n+    c()")
    assert result.content == "def f():\n    a()\n    c()\n"


def test_a_unicode_escape_left_in_a_multi_line_target_is_read() -> None:
    content = 'x = 1\nlabel = g("b")\n'
    source = 'label = g(\\"b\\")'
    target = 'label = g(\\"b\\", \\"caf\\u00e9\\")\nadded = 1'
    result = apply_edit(content, source, target)
    assert result.content == 'x = 1\nlabel = g("b", "caf\u00e9")\nadded = 1\n'


def test_a_non_json_escape_in_an_escaped_target_is_read() -> None:
    content = 'x = 1\nlabel = g("b")\n'
    result = apply_edit(content, 'label = g(\\"b\\")', "label = g(\\\"b\\\", \\'c\\')")
    assert result.content == "x = 1\nlabel = g(\"b\", 'c')\n"


def test_a_target_typed_with_tabs_for_a_source_in_spaces_takes_the_file_s_spaces() -> None:
    content = "def f():\n    if a:\n        b()\n    c()\n"
    result = apply_edit(content, "    if a:\n        b()", "\tif a:\n\t\tb()\n\t\tadded()")
    assert result.content == "def f():\n    if a:\n        b()\n        added()\n    c()\n"


def test_a_restated_drifted_line_moves_with_a_target_typed_for_the_file() -> None:
    content = "def f():\n    for x in y:\n        a()\n    b()\n"
    source = "        for x in y:\n            a()"
    target = "    if ok:\n        for x in y:\n            a()"
    result = apply_edit(content, source, target)
    assert result.content == "def f():\n    if ok:\n        for x in y:\n            a()\n    b()\n"


READ = "def f():\n    width    = 1\n    total = compute(width)\n    return total\n"


@pytest.mark.parametrize(
    "prefixed",
    ["2:    width    = 1\n3:    total = compute(width)",
     "     2\u2192    width    = 1\n     3\u2192    total = compute(width)",
     " 2 |     width    = 1\n 3 |     total = compute(width)"],
    ids=["grep", "arrow", "pipe"],
)
def test_read_tool_line_prefixes_are_read_off(prefixed: str) -> None:
    result = apply_edit(READ, prefixed, "    width    = 1\n    total = measure(width)")
    assert result.content == READ.replace("compute", "measure")


def test_wrong_grep_numbers_are_refused() -> None:
    refused = _refused(READ, "7:    width    = 1\n8:    total = compute(width)",
                       "    width    = 1\n    total = measure(width)")
    assert refused.kind == "line_prefixes"


def test_tabs_shown_as_caret_i() -> None:
    content = "int f() {\n\tif (a) {\n\t\tb();\n\t}\n}\n"
    result = apply_edit(content, "^Iif (a) {\n^I^Ib();", "^Iif (a) {\n^I^Ic();")
    assert result.content == content.replace("b()", "c()")


def test_a_zero_width_space_in_the_source() -> None:
    result = apply_edit(READ, "    total = com\u200bpute(width)", "    total = measure(width)")
    assert result.content == READ.replace("compute", "measure")


def test_a_decomposed_accent_in_the_source() -> None:
    content = "caf\u00e9 = 1\nx = 2\n"
    result = apply_edit(content, "cafe\u0301 = 1", "cafe\u0301 = 3")
    assert result.content == "caf\u00e9 = 3\nx = 2\n"


def test_a_leading_newline_in_the_source_only() -> None:
    result = apply_edit(READ, "\n    total = compute(width)", "    total = measure(width)")
    assert result.content == READ.replace("compute", "measure")


def test_collapsed_alignment_spaces_in_the_source() -> None:
    result = apply_edit(READ, "    width = 1\n    total = compute(width)",
                        "    width = 1\n    total = measure(width)")
    assert result.content == READ.replace("compute", "measure")


def test_curly_quotes_around_strings_the_source_quotes_straight() -> None:
    content = 'x = 1\nlabel = g("b", "c")\n'
    result = apply_edit(content, 'label = g("b", "c")', "label = g(“b”, “c”, “d”)")
    assert result.content == 'x = 1\nlabel = g("b", "c", "d")\n'


def test_a_source_cut_short_whose_target_repeats_the_rest_of_the_line() -> None:
    content = "def f(x):\n    y = compute(x, 1)\n    return y\n"
    result = apply_edit(content, "def f(x):\n    y = compute(", "def f(x):\n    y = measure(x, 1)")
    assert result.content == "def f(x):\n    y = measure(x, 1)\n    return y\n"


def test_a_source_starting_mid_line_whose_target_repeats_the_line_start() -> None:
    result = apply_edit("total = price * qty\n", "price * qty", "total = price * qty * 2")
    assert result.content == "total = price * qty * 2\n"


def test_a_typographic_operator_in_a_block_opener_is_refused() -> None:
    content = "def f():\n    if a > 1:\n        b()\n"
    refused = _refused(content, "    if a > 1:", "    if a \u2260 1:")
    assert refused.kind == "sent_slip"
