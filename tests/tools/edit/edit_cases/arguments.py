"""Slips in the arguments themselves: a BOM copied into the source, odd spaces in indentation,
elision markers, escaped line breaks, line-number prefixes."""

from __future__ import annotations

from . import Case, refuse

BOM = "\ufeff"
CODE = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
QUOTED = 'def g():\n\tprint("a")\n\tsay("b\\n")\n'

REPAIRED = [
    Case("source starting with the file's BOM", BOM + "x = 1\ny = 2\n", BOM + "x = 1",
         "x = 5", BOM + "x = 5\ny = 2\n"),
    Case("source and target starting with the file's BOM", BOM + "x = 1\ny = 2\n",
         BOM + "x = 1\ny = 2", BOM + "x = 1\ny = 3", BOM + "x = 1\ny = 3\n"),
    Case("no-break spaces in a new line's indentation", CODE, "    b = 2",
         "    b = 2\n  \u00a0\u00a0d = 4", CODE.replace("b = 2\n", "b = 2\n    d = 4\n")),
    Case("source JSON-escaped once more than the file", CODE, "    a = 1\\n    b = 2",
         "    a = 1\\n    b = 7", CODE.replace("b = 2", "b = 7")),
    Case("source with the error quote's line numbers", CODE, "2|     a = 1\n3|     b = 2",
         "    a = 1\n    b = 9", CODE.replace("b = 2", "b = 9")),
    Case("source and target with cat -n line numbers", CODE, "     3\t    b = 2",
         "     3\t    b = 8", CODE.replace("b = 2", "b = 8")),
    # Its lines read as escaped text too (`\n` in a string): that reading matches nowhere, so
    # the prefixes' reading is taken.
    Case("grep -n source whose lines also read as escaped text", "run() {\n    printf 'a\\n'\n"
         "    make all\n}\n", "2:    printf 'a\\n'\n3:    make all",
         "    printf 'a\\n'\n    make most", "run() {\n    printf 'a\\n'\n    make most\n}\n"),
    Case("source from grep -n -C over several files: names, `N-` and `N:`", CODE,
         "src/f-1.py-2-    a = 1\nsrc/f-1.py:3:    b = 2", "    a = 1\n    b = 6",
         CODE.replace("b = 2", "b = 6")),
    Case("an elision marker the file already holds is code", "x = 1\n# ...\ny = 2\n", "x = 1",
         "x = 2\n# ...", "x = 2\n# ...\n# ...\ny = 2\n"),
    Case("a stub body of a literal ellipsis", CODE, "    return a", "    ...",
         CODE.replace("return a", "...")),
    Case("a one-line target with an escape in a string", "s = 'a'\n", "s = 'a'", "s = 'a\\n'",
         "s = 'a\\n'\n"),
    Case("a source of several lines, each escaped once more, and its target alike", QUOTED,
         'print(\\"a\\")\nsay(\\"b\\\\n\\")', 'print(\\"a\\")\nsay(\\"B\\\\n\\")',
         QUOTED.replace('"b', '"B'), 4),
    Case("a source of several lines escaped once more, its target typed plain", QUOTED,
         'print(\\"a\\")\nsay(\\"b\\\\n\\")', 'print("a")\nsay("c")',
         QUOTED.replace('say("b\\n")', 'say("c")'), 4),
]

REFUSED = [
    refuse("elision marker standing for kept lines", CODE, "    a = 1\n    b = 2\n    c = 3",
           "    a = 5\n    # ... existing code ...", "elision", 0,
           message="Error: file.txt was not changed: line 2 of target_text, '# ... existing "
           "code ...', stands for code left out, but edit_file writes target_text literally, "
           "so the code it stands for would be deleted. Write out every line that stays in "
           "target_text, or make source_text cover only the lines you change."),
    refuse("block-comment elision marker", "int f() {\n  a();\n  b();\n}\n",
           "int f() {\n  a();\n  b();", "int f() {\n  /* rest unchanged */", "elision", 0),
    refuse("target with escaped line breaks", CODE, "    a = 1\n    b = 2",
           "    a = 1\\n    b = 3", "escaped_target", 0,
           message="Error: file.txt was not changed: source_text spans 2 lines but target_text "
           "is one line holding 1 literal \\n (backslash, n): its line breaks were escaped "
           "twice, and written as sent they would join the code into one line. Send "
           "target_text with real line breaks (and real tabs)."),
    refuse("a source of several lines escaped once more, its target's backslashes unclear",
           QUOTED, 'print(\\"a\\")\nsay(\\"b\\\\n\\")', "print('a')\nsay('b\\n')",
           "escaped_source", 4,
           message="Error: file.txt was not changed: source_text matches the file at line 2 "
           "only with each of its lines unescaped once (read as the inside of a JSON string), "
           "and target_text has backslashes that are not escaped that way, so they could be "
           "the file's text or escapes. Send source_text and target_text as the file's text, "
           "unescaped."),
    refuse("line numbers that are not the file's", CODE, "7|     a = 1\n8|     b = 2",
           "    a = 1\n    b = 9", "line_prefixes", 4,
           message="Error: file.txt was not changed: every line of source_text starts with a "
           "line-number prefix like `N| ` (the error's quote), which is not part of the file, "
           "and its numbers (from 7) are not the file's lines where the text without them "
           "matched (from line 2). Copy source_text without line numbers."),
]

CASES = [*REPAIRED, *REFUSED]
