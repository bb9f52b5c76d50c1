"""Cases about text as text: exact edits, line endings, whitespace, blank lines, empty and
unchanged edits."""

from __future__ import annotations

from . import Case, refuse

EXACT = [
    Case("exact one line", "a = 1\nb = 2\nc = 3\n", "b = 2", "b = 20", "a = 1\nb = 20\nc = 3\n"),
    Case(
        "exact block",
        "def f():\n    x = 1\n    return x\n",
        "    x = 1\n    return x\n",
        "    x = 2\n    return x * 2\n",
        "def f():\n    x = 2\n    return x * 2\n",
    ),
    Case("exact at file start", "first\nsecond\n", "first", "zeroth", "zeroth\nsecond\n"),
    Case("exact at end without newline", "x\ny", "y", "z", "x\nz"),
    Case("exact delete line", "a\nb\nc\n", "b\n", "", "a\nc\n"),
    Case("exact insert after anchor", "a\nc\n", "a\n", "a\nb\n", "a\nb\nc\n"),
    Case(
        "regex specials stay literal",
        "pattern = 'x'\n",
        "'x'",
        r"r'(\d+)\1 $0 \g<0> $&'",
        "pattern = r'(\\d+)\\1 $0 \\g<0> $&'\n",
    ),
    Case("mid-line fragment", "total = price * qty\n", "price * qty", "price * quantity",
         "total = price * quantity\n"),
    Case("non-ASCII text", "名字 = '张三'  # 🙂\n", "'张三'", "'李四'", "名字 = '李四'  # 🙂\n"),
    Case("tabs copied exactly", "if x {\n\ty()\n}\n", "\ty()\n", "\ty()\n\tz()\n",
         "if x {\n\ty()\n\tz()\n}\n"),
    Case("whole file replaced", "old\n", "old\n", "new\ncontent\n", "new\ncontent\n"),
    Case("dollar and backslash in source", "price = $5 \\ tax\n", "$5 \\ tax", "$6",
         "price = $6\n"),
    Case("delete fragment", "x = compute(a, b, c)\n", ", c", "", "x = compute(a, b)\n"),
]

CRLF = [
    Case("crlf file, lf source and target", b"a\r\nb\r\nc\r\n", "a\nb\n", "a\nB\n",
         b"a\r\nB\r\nc\r\n", level=2),
    Case("crlf file, crlf source and target", b"a\r\nb\r\nc\r\n", "b\r\nc", "B\r\nC",
         b"a\r\nB\r\nC\r\n"),
    Case("crlf file, crlf source, lf target", b"a\r\nb\r\nc\r\n", "a\r\nb\r\n", "x\ny\nz\n",
         b"x\r\ny\r\nz\r\nc\r\n"),
    Case("crlf file, one-line source, lines inserted", b"a\r\nb\r\n", "a", "a\na2",
         b"a\r\na2\r\nb\r\n"),
    Case("mixed endings, crlf region", b"one\ntwo\r\nthree\r\nfour\n", "two\nthree\n",
         "2\n3\n", b"one\n2\r\n3\r\nfour\n", level=2),
    Case("mixed endings, lf region", b"one\r\ntwo\nthree\nfour\r\n", "two\nthree", "2\n2b\n3",
         b"one\r\n2\n2b\n3\nfour\r\n"),
    Case("lf file, crlf source", b"a\nb\nc\n", "a\r\nb\r\n", "A\r\nB\r\n", b"A\nB\nc\n",
         level=2),
    Case("lf file, crlf target", b"a\nb\n", "a\n", "x\r\ny\r\n", b"x\ny\nb\n"),
    Case("crlf file, trimmed source", b"def f():\r\n    pass\r\n", "\n\n    pass  \n",
         "    return 1\n", b"def f():\r\n    return 1\r\n", level=3),
    Case("crlf file, indentation drift", b"if a:\r\n    b()\r\n    c()\r\n", "if a:\n  b()\n  c()",
         "if a:\n  b()\n  if d:\n    c()", b"if a:\r\n    b()\r\n    if d:\r\n        c()\r\n",
         level=4),
    Case("crlf file without final newline", b"a\r\nb", "a\nb", "a\nc", b"a\r\nc", level=2),
    Case("crlf delete line", b"a\r\nb\r\nc\r\n", "b\n", "", b"a\r\nc\r\n", level=2),
    Case("lone CR kept", b"a\rb\nc\n", "c", "d", b"a\rb\nd\n"),
    Case("crlf file, source and target both lf with blank line", b"x\r\n\r\ny\r\n",
         "x\n\ny", "x\n\ny\nz", b"x\r\n\r\ny\r\nz\r\n", level=2),
]

TRAILING_WHITESPACE = [
    Case("file has trailing spaces", "def f():   \n    return 1\n", "def f():\n    return 1",
         "def f():\n    return 2", "def f():   \n    return 2\n", level=4),
    Case("source has trailing spaces", "x = 1\ny = 2\n", "x = 1   ", "x = 2   ", "x = 2\ny = 2\n",
         level=3),
    Case("source inner line has trailing spaces", "if a:\n    b()\n    c()\n",
         "if a:  \n    b()\t\n    c()", "if a:\n    b()\n    d()", "if a:\n    b()\n    d()\n",
         level=4),
    Case("source ends with newline and spaces", "x = 1\ny = 2\n", "y = 2\n   ", "y = 3\n",
         "x = 1\ny = 3\n", level=3),
    Case("file has trailing tab", "a = 1\t\nb = 2\n", "a = 1\nb = 2", "a = 1\nb = 3",
         "a = 1\t\nb = 3\n", level=4),
    Case("target trailing whitespace kept at level 4", "k:\n  v: 1   \n", "k:\n    v: 1",
         "k:\n    v: 2   \n\n", "k:\n  v: 2   \n", level=4),
]

BLANK_LINES = [
    Case("surrounding blank lines in source", "a\n\nb\n\nc\n", "\n\n\nb\n\n\n", "\n\nB\n\n",
         "a\n\nB\n\nc\n", level=3),
    Case("target leading blank lines dropped at level 4", "  x\n  y\nz\n", "\n\nx\ny\n",
         "\n\nx\nw\n", "  x\n  w\nz\n", level=4),
    Case("source newline past end of file", "a\nb", "b\n", "c\n", "a\nc", level=3),
    Case("source newline before start of file", "x = 1\ny\n", "\nx = 1", "\nx = 2",
         "x = 2\ny\n", level=3),
    Case("trimmed delete removes the line", "\tx = 1\ny\n", "\n    x = 1\n", "", "y\n",
         level=3),
    Case("level-4 delete removes the lines", "a\n  b\n  c\nd\n", "b\nc", "", "a\nd\n",
         level=4),
    Case("level-4 delete of last lines", "a\n  b\n  c", "b\nc", "\n", "a", level=4),
    Case("blank line inside block kept", "def f():\n    a()\n\n    b()\n", "a()\n\nb()",
         "a()\n\nc()", "def f():\n    a()\n\n    c()\n", level=4),
]

EMPTY_SOURCE = [
    refuse("empty source", "a\n", "", "b", "empty_source", 0,
           message="Error: file.txt was not changed: source_text is empty or only whitespace. "
           "edit_file replaces text that is already in the file and never appends, prepends or "
           "overwrites: put the exact lines to replace in source_text (to add code, include the "
           "neighbouring lines and repeat them in target_text; to create or overwrite a whole "
           "file, use write_file)."),
    refuse("space source", "a\n", " ", "b", "empty_source", 0),
    refuse("newlines source", "a\n\n", "\n\n", "b", "empty_source", 0),
    refuse("tabs and newline source", "\t\n", "\t \n", "x", "empty_source", 0),
    refuse("empty source on empty file", "", "", "content", "empty_source", 0),
]

NO_CHANGE = [
    refuse("identical texts", "a\n", "a", "a", "no_change", 0,
           message="Error: file.txt was not changed: source_text and target_text are identical, "
           "so there is nothing to change."),
    refuse("identical missing texts", "a\n", "zzz", "zzz", "no_change", 0),
    refuse("same after trimming", "x = 1\n", "x = 1 ", "x = 1", "no_change", 3,
           message="Error: file.txt was not changed: source_text matched (level 3, trimmed), but "
           "replacing it with target_text leaves the file as it is. Put the new text in "
           "target_text."),
    Case("trailing spaces added after re-indent", "a()\nb()\n", "  a()\n  b()",
         "  a()\n  b()   ", "a()\nb()   \n", level=4),
    refuse("same after line endings", b"a\r\nb\r\n", "a\nb", "a\r\nb", "no_change", 2),
]

CASES = [*EXACT, *CRLF, *TRAILING_WHITESPACE, *BLANK_LINES, *EMPTY_SOURCE, *NO_CHANGE]
