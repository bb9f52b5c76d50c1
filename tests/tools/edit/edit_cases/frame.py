"""Cases about the indentation frame: a drifted source whose target is typed in the file's frame
or its own, where one line or one map could steer the whole edit the wrong way. Each is read
right or refused, never applied otherwise."""

from __future__ import annotations

from . import Case, refuse

LOOP = "def f():\n    for x in y:\n        a()\n    b()\n"
BODY = "class K:\n    def f(self):\n        x = 1\n        if a:\n            b()\n        z()\n"
NESTED = "def f():\n    if a:\n        if b:\n            c()\n    d()\n    z()\n"
HANGING = "def f():\n    total = compute(\n            value)\n    return total\n"
CLOSERS = "int f () {\n  if (a) {\n    if (b) {\n      c ();\n    }\n  }\n  d ();\n}\n"
OPEN = "int f() {\n    if (a) {\n        b();\n    }\n    z();\n}\n"
LAST = "int f() {\n    if (a) {\n        b();\n    }\n}\n"
FOUR_STEP = "def f():\n    if a:\n        x()\n        y()\n"
GNU = "int\nf (void)\n{\n  if (a)\n    {\n      b ();\n\t  \tc (\"1\");\n    }\n}\n"

FRAME = [
    # A line the target restates as the drifted source typed it, in a target typed for the
    # file (a new opener around the block), moves with the rest.
    Case("restated drifted line moves with a target typed for the file", LOOP,
         "        for x in y:\n            a()", "    if ok:\n        for x in y:\n            a()",
         LOOP.replace("    for x in y:\n        a()\n",
                      "    if ok:\n        for x in y:\n            a()\n"), level=4),
    # The first line unindented in the source and the target (copied from its first non-blank
    # character) says nothing against the lines typed for the file.
    Case("unindented first line on both sides, the rest typed for the file", BODY,
         "x = 1\nif a:\n    b()", "x = 1\n        if a:\n            b()\n            c()",
         BODY.replace("            b()\n", "            b()\n            c()\n"), level=4),
    Case("tabs typed for a source in spaces", "def f():\n    if a:\n        b()\n    c()\n",
         "    if a:\n        b()", "\tif a:\n\t\tb()\n\t\tadded()",
         "def f():\n    if a:\n        b()\n        added()\n    c()\n",
         message="Edited file.txt\n(matched at level 1: exact; re-indented)"),
    # The source nests `c()` one step under `d()`, the file two: no map of the model's steps
    # onto the file's (4 columns each) gives that, so no new nesting can be placed.
    refuse("a width map of scale 2 for nesting the file does not have", NESTED,
           "    c()\nd()", "    c()\nd()\nif x:\n    y()", "indentation", 4),
    refuse("a hanging indent is no doubled unit", HANGING, "total = compute(\n    value)",
           "total = compute(\n    value)\nif total:\n    log()", "indentation", 4),
    # The target keeps one `}` of two: typed like the source it is the inner one, typed for
    # the file the outer one.
    refuse("two look-alike closing lines, one kept", CLOSERS, "  }\n}", "  }", "indentation", 4),
    refuse("unwrapped block with look-alike closing lines", CLOSERS,
           "  if (b) {\n    c ();\n  }\n}", "    c ();\n  }", "indentation", 4),
    # The target closes the block the source opens and the file closes on the next line.
    Case("source without the closing line the target restates (drifted)", OPEN,
         "if (a) {\n    b();", "if (a) {\n    b();\n    c();\n}",
         OPEN.replace("b();\n", "b();\n        c();\n"), level=4),
    Case("source without the closing line the target restates (exact)", OPEN,
         "    if (a) {\n        b();", "    if (a) {\n        c();\n    }",
         OPEN.replace("b();\n", "c();\n")),
    Case("source without the closing line, target closes and adds a line", OPEN,
         "    if (a) {\n        b();", "    if (a) {\n        b();\n    }\n    y();",
         OPEN.replace("    }\n", "    }\n    y();\n", 1)),
    # A source that closes what it opens: its target deleting the opener closes no block the
    # file closes next (the file's `}` stays).
    Case("source closing its block, target deleting the opener", LAST,
         "    if (a) {\n        b();\n    }", "        b();\n    }",
         LAST.replace("    if (a) {\n", "")),
    # A source cut inside an indented line, its target restating the line from its first
    # non-blank character: the line keeps the file's indentation.
    Case("source cut inside an indented line, target restating it unindented",
         "group:\n\tsub:\n\t\tkey: 'value'\n\t\tnext: 1\n", "'value'",
         "key: 'value'\n\t\tadded: 2",
         "group:\n\tsub:\n\t\tkey: 'value'\n\t\tadded: 2\n\t\tnext: 1\n"),
    # A GNU-style file's own irregular indentation, restated, is kept.
    Case("GNU-style tab, spaces, tab kept on a changed line (trimmed)", GNU,
         "      b ();\n\t  \tc (\"1\");\n\n", "      b ();\n\t  \tc (\"2\");",
         GNU.replace("c (\"1\")", "c (\"2\")"), level=3),
    Case("GNU-style tab, spaces, tab kept on a changed line (curly quotes)", GNU,
         "      b ();\n\t  \tc (\u201c1\u201d);", "      b ();\n\t  \tc (\u201c2\u201d);",
         GNU.replace("c (\"1\")", "c (\"2\")"), level=5),
    # A target typed in a frame of its own, every line 4 columns from the source's: as well the
    # block re-indented by 4 columns (moved into a loop above it), refused saying so.
    refuse("target moved by one amount from a drifted source", FOUR_STEP,
           "        if a:\n            x()\n            y()",
           "            if a:\n                x()\n                z()\n                y()",
           "indentation", 4,
           message="Error: file.txt was not changed: source_text matched at line 2 (level 4, "
           "indentation-insensitive) with other indentation than the file's, and every line of "
           "target_text sits 4 columns right of its source_text line: typed in a frame of its "
           "own, or the block re-indented by 4 columns, so it is not clear how to indent it. "
           "The file's lines there:\n2|     if a:\n3|         x()\n4|         y()\nCopy "
           "source_text and target_text with the file's exact indentation."),
]

CASES = [*FRAME]
