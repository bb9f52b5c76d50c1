"""Cases that must be refused (ambiguous, not found) and near misses a loose match would spoil,
plus unicode punctuation."""

from __future__ import annotations

from . import Case, refuse

TWIN = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"

AMBIGUOUS = [
    refuse("two identical lines", "x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3", "ambiguous", 1,
           message="Error: file.txt was not changed: source_text matches 2 places (level 1, "
           "exact), starting at lines 1, 3. Each place is quoted with the nearest line beside "
           "it that the others do not have there: include that line in source_text (and in "
           "target_text, unchanged) to take the place you mean.\n1| x = 1\n2| y = 2\n\n"
           "2| y = 2\n3| x = 1"),
    refuse("overlapping occurrences", "aaa\n", "aa", "b", "ambiguous", 1),
    refuse("trimmed twice", "x = 1\ny = 2\nx = 1\n", "\nx = 1\n\n", "x = 2", "ambiguous", 3),
    refuse("same block at two indentations", "if a:\n    go()\nclass B:\n    if a:\n        go()\n",
           "\tif a:\n\t\tgo()", "\tif a:\n\t\tstop()", "ambiguous", 4,
           message="Error: file.txt was not changed: source_text matches 2 places (level 4, "
           "indentation-insensitive), starting at lines 1, 4. The places differ in their "
           "indentation: copy source_text with the exact indentation of the one you mean.\n"
           "1| if a:\n2|     go()\n\n4|     if a:\n5|         go()"),
    refuse("ambiguous in crlf file", b"a\r\nb\r\na\r\nb\r\n", "a\nb", "c", "ambiguous", 2),
    refuse("ambiguous at level 5", "say(\"hi\")\nsay(\"hi\")\n", "say(“hi”)", "say(“yo”)",
           "ambiguous", 5),
    refuse("many places", "}\n" * 12, "}", "};", "ambiguous", 1,
           message="Error: file.txt was not changed: source_text matches 12 places (level 1, "
           "exact), starting at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more. Include more "
           "surrounding lines in source_text so that it matches exactly one place."),
    refuse("ambiguous exact never falls through", "    go()\ngo()\n", "go()", "run()",
           "ambiguous", 1),
    refuse("repeated block", "a()\nb()\n\na()\nb()\n", "  a()\n  b()", "  c()", "ambiguous", 4),
    refuse("the same body in two functions", TWIN, "    x = 1\n    return x",
           "    x = 2\n    return x", "ambiguous", 1,
           message="Error: file.txt was not changed: source_text matches 2 places (level 1, "
           "exact), starting at lines 2, 6. Each place is quoted with the nearest line beside "
           "it that the others do not have there: include that line in source_text (and in "
           "target_text, unchanged) to take the place you mean.\n1| def a():\n2|     x = 1\n"
           "3|     return x\n\n5| def b():\n6|     x = 1\n7|     return x"),
]

HINT_FILE = "def load(path):\n    with open(path) as f:\n        return f.read()\n"

NOT_FOUND = [
    refuse("typo in identifier", HINT_FILE, "def laod(path):\n    with open(path) as f:",
           "def load(p):", "not_found", 5,
           message="Error: file.txt was not changed: source_text was not found at any level: "
           "not exactly, nor ignoring line endings, surrounding whitespace, indentation, blank "
           "lines inside it or unicode punctuation.\n"
           "The closest lines in the file (did you mean these?):\n"
           "1| def load(path):\n2|     with open(path) as f:\n"
           "Read the file again and copy source_text exactly from it."),
    refuse("text from another file", HINT_FILE, "zzz_qqq()", "x", "not_found", 5,
           message="Error: file.txt was not changed: source_text was not found at any level: "
           "not exactly, nor ignoring line endings, surrounding whitespace, indentation, blank "
           "lines inside it or unicode punctuation. "
           "Read the file again and copy source_text exactly from it."),
    Case("extra blank line in the middle", "a()\nb()\n", "a()\n\nb()", "c()", "c()\n", level=4),
    refuse("missing line in the middle", "a()\nb()\nc()\n", "a()\nc()", "d()", "not_found", 5),
    refuse("inner whitespace differs", "x = 1\n", "x=1", "x=2", "not_found", 5),
    refuse("lines in another order", "a()\nb()\n", "b()\na()", "c()", "not_found", 5),
    refuse("case differs", "Foo()\n", "foo()", "bar()", "not_found", 5),
    refuse("empty file", "", "x", "y", "not_found", 5),
    refuse("quotes differ in kind", "s = 'a'\n", 's = "a"', 's = "b"', "not_found", 5),
]

NEAR_MISSES = [
    Case("trimmed source anchored at line start", "retry_count = 3\n\tcount = 3\n",
         "    count = 3\n", "    count = 4\n", "retry_count = 3\n\tcount = 4\n", level=3),
    refuse("trimmed source anchored at line end", "count = 30\n", "count = 3\n", "count = 4\n",
           "not_found", 5),
    refuse("longer identifier only", "    return xy\n", "  return x\n", "  return z\n",
           "not_found", 5),
    Case("commented copy is not at line start", "# x = 1\n    x = 1\n", "\tx = 1", "\tx = 2",
         "# x = 1\n    x = 2\n", level=3),
    refuse("whole-line match required at level 4", "value = compute(a)  # note\n",
           "value = compute(a)\n  # other", "value = 0", "not_found", 5),
    refuse("prefix of a line at level 4", "if a:\n    run(fast=True)\n", "if a:\n  run(",
           "if a:\n  walk(", "not_found", 5),
    refuse("truncated at end of file", "a()\nb()", "a()\nb()\nc()", "x", "not_found", 5),
    refuse("trailing spaces mark the end of a word", "max = 10\n", "x = 1  ", "x = 2",
           "not_found", 5),
    Case("trailing spaces match before a comment", "x = 1  # one\nmax = 10\n", "x = 1  ",
         "x = 2  ", "x = 2  # one\nmax = 10\n"),
    Case("trailing spaces at level 3 before a comment", "x = 1 # one\nmax = 10\n", "x = 1  ",
         "x = 2", "x = 2 # one\nmax = 10\n", level=3),
    refuse("same words, other line", "x = 1\n", "  x = 1 + 1", "x = 2", "not_found", 5),
]

UNICODE = [
    Case("curly quotes in source and target", 'print("hi")\n', "print(“hi”)", "print(“hello”)",
         'print("hello")\n', level=5),
    Case("ascii quotes in source, curly in file", "# say “hi” here\nx = 1\n", '# say "hi" here',
         '# say "hello" here', '# say “hello” here\nx = 1\n', level=5),
    Case("en dash in source", "range = 1-5\n", "range = 1–5", "range = 1–9", "range = 1-9\n",
         level=5),
    Case("non-breaking space in source", "a = b\n", "a\u00a0= b", "a\u00a0= c", "a = c\n",
         level=5),
    Case("curly apostrophe", "msg = 'it's'\n", "'it’s'", "'it’s done'", "msg = 'it's done'\n",
         level=5),
    Case("level 5 line match with indentation", "def f():\n    say('x')\n    say('y')\n",
         "say(‘x’)\nsay(‘y’)", "say(‘x’)\nsay(‘z’)", "def f():\n    say('x')\n    say('z')\n",
         level=5),
    Case("file's dash kept where the model restated it", "note = a-b — c\n", "note = a-b - c",
         "note = a-b - d", "note = a-b — d\n", level=5),
    Case("punctuation elsewhere untouched", "t = “keep”\nx = 1\n", "x = 1", "x = 2",
         "t = “keep”\nx = 2\n"),
]

STALE = "a = load(1)\nb = scale(a, 3)\nc = 0\n\na = load(1)\nb = scale(a, 2)  \n"

RIVALS = [
    refuse("stale source, look-alike differing in trailing whitespace", STALE,
           "a = load(1)\nb = scale(a, 2)", "a = load(1)\nb = scale(a, 5)", "near_rival", 1,
           message="Error: file.txt was not changed: source_text matched at line 5 only "
           "approximately (level 1, exact, trailing whitespace differs), and the block at "
           "line 1 differs from it in the text of one line only, so either may be meant (the "
           "file may have changed since you read it). Read the file again and copy source_text "
           "exactly from it."),
    Case("near match without a rival", STALE.replace("scale(a, 3)", "other()"),
         "a = load(1)\nb = scale(a, 2)", "a = load(1)\nb = scale(a, 5)",
         STALE.replace("scale(a, 3)", "other()").replace("scale(a, 2)  ", "scale(a, 5)  ")),
]

CALLS = "def f(x):\n    y = 1\n    return compute(x, y)\n"

ALIKE = "def f():\n    a = compute(1)\n    b = compute(2)\n    c = compute(3)\n"

CUT_SECOND_LINE = [
    Case("source ending inside its second line, the target editing only that part", CALLS,
         "    y = 1\n    return compute(", "    y = 2\n    return measure(",
         CALLS.replace("y = 1", "y = 2").replace("compute", "measure")),
    # The target repeats what the file has after the cut: the whole line is meant.
    Case("source ending inside its second line, the target repeating the rest", CALLS,
         "    y = 1\n    return compute(", "    y = 2\n    return measure(x, y)",
         CALLS.replace("y = 1", "y = 2").replace("compute", "measure")),
    refuse("source ending inside its second line, the target rewriting it", CALLS,
           "    y = 1\n    return compute(", "    y = 2\n    pass", "partial_line", 1),
    # Leaving the cut line out would delete the part copied and keep the rest of the line.
    refuse("source ending inside its last line, the target leaving that line out", ALIKE,
           "    a = compute(1)\n    b = compute(2)\n    c = compute(",
           "    a = compute(1)\n    b = compute(2)", "partial_line", 1),
    refuse("source starting inside its first line, the target leaving that line out", ALIKE,
           "= compute(1)\n    b = compute(2)", "    b = compute(2)", "partial_line", 1),
]

CASES = [*AMBIGUOUS, *NOT_FOUND, *NEAR_MISSES, *UNICODE, *RIVALS, *CUT_SECOND_LINE]
