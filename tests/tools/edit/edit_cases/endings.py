"""Cases about files whose lines end with a lone CR, alone or mixed with LF and CRLF: the edit
applies where its line endings are certain and keeps the file's."""

from __future__ import annotations

from . import Case, refuse

CR_FILE = b"def f():\r    a()\r    b()\r"

CASES = [
    Case("cr file: one line changed", CR_FILE, "    b()", "    c()",
         b"def f():\r    a()\r    c()\r"),
    Case("cr file: lines added between lines", CR_FILE, "    a()\n    b()",
         "    a()\n    added()\n    b()", b"def f():\r    a()\r    added()\r    b()\r", level=2),
    Case("cr file: drifted source", CR_FILE, "a()\nb()", "a()\nb()\nc()",
         b"def f():\r    a()\r    b()\r    c()\r", level=4),
    Case("cr and crlf: the edited lines keep theirs", b"x = 1\r\ny = 2\rz = 3\r",
         "y = 2\nz = 3", "y = 20\nz = 30", b"x = 1\r\ny = 20\rz = 30\r", level=2),
    Case("cr and lf: an insertion among lf lines", b"x = 1\ry = 2\nz = 3\n",
         "y = 2\nz = 3", "y = 2\nw = 4\nz = 3", b"x = 1\ry = 2\nw = 4\nz = 3\n"),
    refuse("cr and lf in the lines replaced", b"a = 1\rb = 2\nc = 3\n", "a = 1\nb = 2\nc = 3",
           "a = 10\nb = 20\nc = 30", "line_endings", 2),
]
