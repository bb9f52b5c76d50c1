"""The smallest edits between two texts, and their LSP positions.

The oracle of the generated cases: applying the edits to the old text gives the new text, byte
for byte (CRLF, lone CR, BOM and characters outside the BMP included), the edits are in order
and never overlap or cut a CRLF, and applying the LSP `TextEdit`s as an editor does (pygls'
document, UTF-16 positions) gives the new text too.
"""

from __future__ import annotations

import itertools
import time

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument

from harness9.lsp.text_edits import (
    Replacement,
    apply_replacements,
    minimal_edits,
    text_edits,
)

_CHARS = st.sampled_from(["a", "b", " ", "\n", "\r\n", "\r", "é", "😀", "\ufeff", "\t"])
TEXTS = st.lists(_CHARS, max_size=40).map("".join)
LINES = st.lists(st.sampled_from(["x = 1\n", "y = 2\r\n", "def f():\n", "  pass\n", "\n"]),
                 max_size=30).map("".join)


def applied_as_an_editor_does(old: str, edits: list[types.TextEdit]) -> str:
    """The text of a pygls document after the edits, last first (their ranges refer to `old`)."""
    document = TextDocument("file:///x.txt", old)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        document.apply_change(types.TextDocumentContentChangePartial(edit.range, edit.new_text))
    return document.source


def check(old: str, new: str) -> list[Replacement]:
    edits = minimal_edits(old, new)
    assert apply_replacements(old, edits) == new
    for before, after in itertools.pairwise(edits):
        assert before.end <= after.start
    for edit in edits:
        assert old[edit.start - 1 : edit.start + 1] != "\r\n" or edit.start == 0
        assert old[edit.end - 1 : edit.end + 1] != "\r\n" or edit.end == 0
    return edits


@settings(max_examples=400, deadline=None)
@given(TEXTS, TEXTS)
def test_generated_texts_round_trip(old: str, new: str) -> None:
    check(old, new)


@settings(max_examples=200, deadline=None)
@given(LINES, LINES)
def test_generated_line_edits_round_trip_through_lsp_positions(old: str, new: str) -> None:
    edits = check(old, new)
    # pygls splits lines like `str.splitlines`, so lone CRs are left out of this oracle.
    sent = text_edits(old, edits, None)
    assert applied_as_an_editor_does(old, sent) == new
    # No edit starts on the line after the last one (Neovim would append an empty line).
    assert all(e.range.start.line < max(len(old.splitlines()), 1) for e in sent)


def test_equal_texts_need_no_edit() -> None:
    assert minimal_edits("same\n", "same\n") == []


def test_one_changed_word_is_one_small_edit() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 50\n", "line fifty\n")
    (edit,) = text_edits(old, minimal_edits(old, new), None)
    assert (edit.range.start, edit.range.end, edit.new_text) == (
        types.Position(50, 5), types.Position(50, 7), "fifty"
    )


def test_distant_changes_are_separate_edits() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 10\n", "line ten\n").replace("line 90\n", "line ninety\n")
    edits = text_edits(old, minimal_edits(old, new), None)
    assert [(e.range.start.line, e.new_text) for e in edits] == [(10, "ten"), (90, "ninety")]


def test_text_added_at_the_end_replaces_the_last_line_break() -> None:
    # Neovim takes an edit starting at (line count, 0) as lines to append, and the new text's
    # last line break as one more, empty, line.
    for old, eol in (("def f():\n    pass\n", "\n"), ("a\r\nb\r\n", "\r\n")):
        new = old + f"{eol}{eol}def g():{eol}    pass{eol}"
        (edit,) = text_edits(old, minimal_edits(old, new), None)
        assert (edit.range.start, edit.range.end) == (types.Position(1, len(old.splitlines()[1])),
                                                      types.Position(2, 0))
        assert edit.new_text == eol + new[len(old):]
        assert applied_as_an_editor_does(old, [edit]) == new


def test_an_edit_never_cuts_a_crlf() -> None:
    edits = minimal_edits("a\r\nb\r\n", "a\r\r\nb\r\n")
    assert apply_replacements("a\r\nb\r\n", edits) == "a\r\r\nb\r\n"
    assert all("\r\n" not in "a\r\nb\r\n"[e.start - 1 : e.start + 1] for e in edits if e.start)


def test_positions_count_utf16_units_unless_agreed_otherwise() -> None:
    old, new = "😀é x\n", "😀é y\n"
    edits = minimal_edits(old, new)
    utf16, utf8, utf32 = (
        text_edits(old, edits, encoding)[0].range.start.character
        for encoding in (None, types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf32)
    )
    assert (utf16, utf8, utf32) == (4, 7, 3)


def test_a_rewrite_of_repeating_lines_is_one_block_made_within_seconds() -> None:
    old = "".join(f"{(i * 7919) % 151}\n" for i in range(60_000))
    new = "".join(f"{(i * 104_729) % 151}\n" for i in range(60_000))
    started = time.monotonic()
    check(old, new)
    assert time.monotonic() - started < 5
