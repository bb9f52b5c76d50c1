"""`edit_file`'s refusals: one exception with a kind and a level, and the texts the model reads."""

from __future__ import annotations

from collections.abc import Sequence

from harness9.schema import ToolError
from harness9.tools.edit.hint import MAX_SHOWN, quote

LEVELS = {
    1: "exact",
    2: "line endings normalized",
    3: "trimmed",
    4: "indentation-insensitive",
    5: "unicode punctuation",
}
_SHOWN_LINES = 10


class EditError(ToolError):
    """An edit refused with the file unchanged.

    `kind` is one of `empty_source`, `no_change`, `ambiguous`, `not_found`, `indentation`
    (the match was unique but `target_text`'s indentation cannot be placed in the file's) or
    `partial_line` (the source starts or ends inside a line that the target restates whole),
    `escaped_source` (a source escaped once more whose target's backslashes read two ways),
    `line_endings` (the lines replaced end with lone CRs and lone LFs both),
    `elision` (a target line stands for code left out), `escaped_target` (the target's line
    breaks arrived as literal `\\n`) or `line_prefixes` (a source copied with line numbers
    that are not the file's at the match) or `near_rival` (an approximate match with another
    block as close to the source), `sent_slip` (an HTML entity or typographic operator the
    target brings into code) or `already_applied` (target_text is already where source_text
    would be);
    `level` is the matching level reached (0 when the arguments alone were refused).
    """

    def __init__(self, kind: str, level: int, reason: str) -> None:
        super().__init__(f"Error: {reason}")
        self.kind = kind
        self.level = level
        self.reason = reason

    def in_file(self, path: str) -> EditError:
        """The same refusal, its text naming the file the model gave."""
        return EditError(self.kind, self.level, f"{path} was not changed: {self.reason}")


def level_name(level: int) -> str:
    """`level N (name)`, as the texts show it."""
    return f"level {level}, {LEVELS[level]}"


def empty_source() -> EditError:
    """source_text is empty or blank."""
    return EditError(
        "empty_source",
        0,
        "source_text is empty or only whitespace. edit_file replaces text that is already in the "
        "file and never appends, prepends or overwrites: put the exact lines to replace in "
        "source_text (to add code, include the neighbouring lines and repeat them in "
        "target_text; to create or overwrite a whole file, use write_file).",
    )


def no_change(level: int) -> EditError:
    """The edit would leave the file as it is."""
    if level == 0:
        reason = "source_text and target_text are identical, so there is nothing to change."
    else:
        reason = (
            f"source_text matched ({level_name(level)}), but replacing it with target_text "
            "leaves the file as it is. Put the new text in target_text."
        )
    return EditError("no_change", level, reason)


def ambiguous(level: int, lines: Sequence[int], told: str = "") -> EditError:
    """More than one place matched at `level`, starting at `lines`; `told`: what tells them
    apart, quoted (see `places`), or ""."""
    shown = ", ".join(str(n) for n in lines[:_SHOWN_LINES])
    more = f" and {len(lines) - _SHOWN_LINES} more" if len(lines) > _SHOWN_LINES else ""
    advice = told or (" Include more surrounding lines in source_text so that it matches "
                      "exactly one place.")
    return EditError(
        "ambiguous",
        level,
        f"source_text matches {len(lines)} places ({level_name(level)}), starting at lines "
        f"{shown}{more}.{advice}",
    )


def not_found(hint: str | None) -> EditError:
    """No level found a match; `hint` quotes the closest file lines, if any."""
    reason = (
        "source_text was not found at any level: not exactly, nor ignoring line endings, "
        "surrounding whitespace, indentation, blank lines inside it or unicode punctuation."
    )
    if hint:
        reason += f"\nThe closest lines in the file (did you mean these?):\n{hint}\n"
    else:
        reason += " "
    reason += "Read the file again and copy source_text exactly from it."
    return EditError("not_found", 5, reason)


def indentation(level: int, first_line: int, detail: str) -> EditError:
    """A unique match whose indentation cannot be carried over to target_text."""
    return EditError(
        "indentation",
        level,
        f"source_text matched at line {first_line} only when ignoring indentation "
        f"({level_name(level)}), and the indentation of target_text cannot be mapped onto the "
        f"file's: {detail}. Copy source_text and target_text with the file's exact indentation.",
    )


def unclear_indentation(
    level: int, first_line: int, reason: str, lines: Sequence[str]
) -> EditError:
    """A unique match where nothing safe tells how to indent target_text; quotes the file."""
    numbered = quote(lines, 0, min(len(lines), MAX_SHOWN), first_line)
    return EditError(
        "indentation",
        level,
        f"source_text matched at line {first_line} ({level_name(level)}) with other "
        f"indentation than the file's, and {reason}, so it is not clear how to indent it. The "
        f"file's lines there:\n{numbered}\nCopy source_text and target_text with the file's "
        "exact indentation.",
    )


def partial_line(
    level: int, line: int, where: str, lines: Sequence[str] = (), first: int = 1
) -> EditError:
    """source_text starts or ends inside a line that target_text restates whole; `lines` are
    the file's lines the source touches, from line `first`, quoted so that the next call can
    copy them whole."""
    shown = " "
    if lines:
        shown = f" The file's lines there:\n{quote(lines, 0, len(lines), first)}\n"
    return EditError(
        "partial_line",
        level,
        f"source_text {where} in the middle of line {line} ({level_name(level)}), but "
        "target_text rewrites that whole line, so applying it would keep or repeat part of the "
        f"line.{shown}Include the whole line in source_text (and in target_text).",
    )


def elision(line: int, marker: str) -> EditError:
    """A target line that stands for code left out, which writing it would delete."""
    return EditError(
        "elision",
        0,
        f"line {line} of target_text, {marker!r}, stands for code left out, but edit_file "
        "writes target_text literally, so the code it stands for would be deleted. Write out "
        "every line that stays in target_text, or make source_text cover only the lines you "
        "change.",
    )


def escaped_target(escapes: int, lines: int) -> EditError:
    """A one-line target with literal `\\n` for a source of several lines."""
    return EditError(
        "escaped_target",
        0,
        f"source_text spans {lines} lines but target_text is one line holding {escapes} "
        "literal \\n (backslash, n): its line breaks were escaped twice, and written as sent "
        "they would join the code into one line. Send target_text with real line breaks (and "
        "real tabs).",
    )


def line_prefixes(kind: str, first: int, found: int) -> EditError:
    """A source copied with line-number prefixes that are not the file's lines at the match."""
    return EditError(
        "line_prefixes",
        4,
        f"every line of source_text starts with a line-number prefix like {kind}, which is not "
        f"part of the file, and its numbers (from {first}) are not the file's lines where the "
        f"text without them matched (from line {found}). Copy source_text without line numbers.",
    )


def near_rival(level: int, line: int, rival: int) -> EditError:
    """A near match with a rival block that differs from the source in one line only."""
    return EditError(
        "near_rival",
        level,
        f"source_text matched at line {line} only approximately ({level_name(level)}, "
        f"trailing whitespace differs), and the block at line {rival} differs from it in "
        "the text of one line only, so either may be meant (the file may have changed since "
        "you read it). Read the file again and copy source_text exactly from it.",
    )


def sent_slip(reason: str) -> EditError:
    """A slip in the arguments that is never the file's code (an HTML entity, a typographic
    operator), which written as sent would break it."""
    return EditError("sent_slip", 0, f"{reason}. The file is unchanged.")


def unclosed(level: int, line: int, closer: str) -> EditError:
    """A source that leaves out the closing line the target restates, typed so that nothing
    tells how it would indent it."""
    return EditError(
        "indentation",
        level,
        f"target_text closes a block with {closer!r}, which source_text leaves open and the file "
        f"closes on line {line}, but nothing in source_text tells how it indents that line. "
        "Include the closing line in source_text too.",
    )


def already_applied(line: int, level: int) -> EditError:
    """The edit is already in the file: target_text is where source_text would be."""
    return EditError(
        "already_applied",
        level,
        f"this edit seems to be applied already: target_text is in the file at line {line}, "
        "where source_text would be, and source_text is not there as sent (applying it again "
        "would repeat the change). Nothing to do; if you mean a further change, read the file "
        "again and copy source_text from its current text.",
    )


def mixed_endings() -> EditError:
    """The lines an edit replaces end with lone CRs and lone LFs both."""
    return EditError(
        "line_endings",
        2,
        "the lines this edit replaces end some with CR and some with LF, so the line endings "
        "of its new lines are not certain. Make source_text cover lines of one line ending "
        "only.",
    )


def unclear_escapes(line: int, level: int) -> EditError:
    """A source of several lines escaped once more than the file, with a target whose
    backslashes could be the file's text or escapes."""
    return EditError(
        "escaped_source",
        level,
        f"source_text matches the file at line {line} only with each of its lines unescaped "
        "once (read as the inside of a JSON string), and target_text has backslashes that are "
        "not escaped that way, so they could be the file's text or escapes. Send source_text "
        "and target_text as the file's text, unescaped.",
    )
