"""Cases from the slips models make that the first matching pass turned into wrong edits: a
target typed in the file's frame, a first line copied after its indentation, a split CRLF,
punctuation restated, trailing spaces, mixed line endings, whole-line deletes, truncated lines,
a blank line missing in the source."""

from __future__ import annotations

from . import Case, refuse

METHOD = "class Link:\n    def connect(self):\n        return 1\n"

FRAME = [
    Case("target typed for the file, source with 2-space indentation", METHOD,
         "def connect(self):\n  return 1", "    def connect(self):\n        return 2",
         METHOD.replace("return 1", "return 2"), level=4),
    Case("target typed for the file, source shifted", METHOD,
         "      def connect(self):\n          return 1",
         "    def connect(self):\n        if self.ok:\n            return 2\n        return 1",
         METHOD.replace("        return 1", "        if self.ok:\n            return 2\n"
                        "        return 1"), level=4),
    Case("tabs in the file, spaces in the source, tabs in the target",
         "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n", "    if a {\n        b()\n    }",
         "\tif a {\n\t\tb()\n\t\tc()\n\t}", "func f() {\n\tif a {\n\t\tb()\n\t\tc()\n\t}\n}\n",
         level=4),
    refuse("source and target drifted by different amounts", METHOD,
           "  def connect(self):\n    return 1", "      def connect(self):\n        return 2",
           "indentation", 4),
    Case("first line copied after its indentation, target keeps it", "\tx = 1\n", "x = 1\n",
         "\tx = 2\n", "\tx = 2\n"),
    Case("first line copied after its indentation, empty target", "a\n\tx = 1\nb\n", "x = 1",
         "", "a\nb\n"),
    Case("trimmed match, target dedents both lines", "    x = 1\n    y = 2\n",
         "    x = 1\n    y = 2\n\n", "x = 1\ny = 2", "x = 1\ny = 2\n", level=3),
    Case("trimmed delete of a whole line", "a\n    x = 1\nb\n", "  x = 1  ", "", "a\nb\n",
         level=3),
]

TEXT = [
    Case("match never splits a CRLF", b"a\r\nb\r\nc\r\n", "\nb\r\nc", "\nB\r\nc",
         b"a\r\nB\r\nc\r\n", level=2),
    Case("restated punctuation keeps the file's", "s = “a” + ‘b’\n", "s = \"a\" + 'b'",
         "s = \"a\" + 'c'", "s = “a” + ‘c’\n", level=5),
    Case("target's hard line breaks kept", "  - a\n  - b\n", "- a\n- b", "- a  \n- b  ",
         "  - a  \n  - b  \n", level=4),
    Case("mixed endings: restated lines keep their own", b"one\r\ntwo\nthree\r\nfour\n",
         "one\ntwo\nthree", "one\nTWO\nthree", b"one\r\nTWO\nthree\r\nfour\n", level=2),
    refuse("truncated last line", "def f(x):\n    return x + 1\n",
           "def f(x):\n    return x +", "def f(x):\n    return x + 2", "partial_line", 1),
    refuse("truncated one-line source continued by the target", "    return x + 1\n",
           "return x +", "return x + 2", "partial_line", 1),
    Case("source starting mid-line, target restating the line", "total = price * qty\n",
         "price * qty", "total = price * qty * 2", "total = price * qty * 2\n"),
    Case("blank line missing inside the source", "def f():\n    a()\n\n    b()\n",
         "def f():\n    a()\n    b()", "def f():\n    a()\n    c()",
         "def f():\n    a()\n\n    c()\n", level=4),
]

JSON = '{\n    "a": 1,\n    "b": 2,\n    "c": 3\n}\n'

LOOSE_FIRST = [
    Case("first line after its indentation, the rest in tabs, target typed for the file", JSON,
         '"a": 1,\n\t"b": 2,', '"a": 1,\n    "b": 5,', JSON.replace("2", "5"), level=4),
    Case("first line after its indentation, the rest in tabs, target typed like it", JSON,
         '"a": 1,\n\t"b": 2,\n\t"c": 3', '"a": 1,\n\t"b": 2,\n\t"d": 4,\n\t"c": 3',
         JSON.replace('"c"', '"d": 4,\n    "c"'), level=4),
    Case("first line after its indentation, a blank line missing, target restates the first",
         "def f():\n  if a:\n    b()\n\n  c()\n", "if a:\n    b()\n  c()",
         "if a:\n    b(1)\n  c()", "def f():\n  if a:\n    b(1)\n\n  c()\n", level=4),
    refuse("first line after its indentation, target lines indented like neither",
           "    k1: 1\nk2: 2\ngroup:\n    k3: 3\n", "k1: 1\nk2: 2\ngroup:\n\tk3: 3",
           "k1: 1\n\tk2: 2\n\tgroup:\n\t\tk3: 4", "indentation", 4),
]

LOOKALIKE = "a:\n  x: 1  \n\n  y: 2\nb:\n  c:\n    x: 1  \n\n    y: 2\n"

AS_TYPED = [
    Case("look-alike block one level deeper, a blank line missing in the source", LOOKALIKE,
         "  x: 1  \n  y: 2", "  x: 1  \n  y: 3", LOOKALIKE.replace("y: 2", "y: 3", 1), level=4),
    Case("look-alike block one level deeper, trailing spaces lost in the source",
         LOOKALIKE.replace("\n\n", "\n"), "  x: 1\n  y: 2", "  x: 1\n  y: 3",
         LOOKALIKE.replace("\n\n", "\n").replace("y: 2", "y: 3", 1), level=4),
    refuse("look-alike blocks, neither indented as typed", LOOKALIKE, "x: 1\n y: 2",
           "x: 1\n y: 3", "ambiguous", 4),
]

YAML = "group:\n  b: 1\n  c:\n    d: 2\nz: 0\n"
WIDE = "group:\n    b: 1\n    c:\n        d: 2"

NESTING = [
    Case("block re-indented as a whole, source and target in a wider unit", YAML, WIDE,
         "\n".join("    " + line for line in WIDE.split("\n")),
         "  group:\n    b: 1\n    c:\n      d: 2\nz: 0\n", level=4),
    refuse("block moved as a whole with a line added: re-indented, or typed in a third frame",
           YAML, WIDE, "    group:\n        b: 1\n        e: 3\n        c:\n            d: 2",
           "indentation", 4),
]

CASES = [*FRAME, *TEXT, *LOOSE_FIRST, *AS_TYPED, *NESTING]
