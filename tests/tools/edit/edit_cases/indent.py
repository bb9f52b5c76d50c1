"""Cases about indentation drift and about real languages (Python, Go, JSON, YAML)."""

from __future__ import annotations

from . import Case, refuse

PY_METHOD = """\
class Cart:
    def total(self):
        result = 0
        for item in self.items:
            result += item.price
        return result
"""

INDENTATION = [
    Case(
        "2-space source, 4-space file, new nesting",
        PY_METHOD,
        "for item in self.items:\n  result += item.price\nreturn result",
        "for item in self.items:\n  if item.active:\n    result += item.price\nreturn result",
        PY_METHOD.replace(
            "            result += item.price\n",
            "            if item.active:\n                result += item.price\n",
        ),
        level=4,
        path="cart.py",
    ),
    Case(
        "4-space source, 2-space file",
        "function f() {\n  if (a) {\n    b();\n  }\n}\n",
        "if (a) {\n    b();\n}",
        "if (a) {\n    b();\n    c();\n} else {\n    d();\n}",
        "function f() {\n  if (a) {\n    b();\n    c();\n  } else {\n    d();\n  }\n}\n",
        level=4,
        path="f.js",
    ),
    Case(
        "spaces source, tab file",
        "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n",
        "    if a {\n        b()\n    }",
        "    if a {\n        b()\n        c()\n    }",
        "func f() {\n\tif a {\n\t\tb()\n\t\tc()\n\t}\n}\n",
        level=4,
        path="f.go",
    ),
    Case(
        "tab source, space file",
        "def f():\n    if a:\n        b()\n",
        "\tif a:\n\t\tb()",
        "\tif a:\n\t\tb()\n\telse:\n\t\tc()",
        "def f():\n    if a:\n        b()\n    else:\n        c()\n",
        level=4,
    ),
    Case(
        "dedented source and target",
        PY_METHOD,
        "result = 0\nfor item in self.items:\n    result += item.price",
        "result = 0.0\nfor item in self.items:\n    result += item.price * item.qty",
        PY_METHOD.replace("result = 0\n", "result = 0.0\n").replace(
            "item.price\n", "item.price * item.qty\n"
        ),
        level=4,
    ),
    Case(
        "over-indented source and target",
        "if a:\n    b()\n    c()\n",
        "            b()\n            c()",
        "            b()\n            if d:\n                c()",
        "if a:\n    b()\n    if d:\n        c()\n",
        level=4,
    ),
    Case(
        "target removes a wrapper",
        PY_METHOD,
        "for item in self.items:\n    result += item.price",
        "result += sum(i.price for i in self.items)",
        PY_METHOD.replace(
            "        for item in self.items:\n            result += item.price\n",
            "        result += sum(i.price for i in self.items)\n",
        ),
        level=4,
    ),
    Case(
        "target adds a wrapper",
        "def f():\n    x()\n    y()\n",
        "x()\ny()",
        "try:\n    x()\n    y()\nfinally:\n    z()",
        "def f():\n    try:\n        x()\n        y()\n    finally:\n        z()\n",
        level=4,
    ),
    Case(
        "2-space source, tab file",
        "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n",
        "if a {\n  b()\n}",
        "if a {\n  if c {\n    b()\n  }\n}",
        "func f() {\n\tif a {\n\t\tif c {\n\t\t\tb()\n\t\t}\n\t}\n}\n",
        level=4,
    ),
    Case(
        "one-line source, tab file, spaced target lines",
        "func f() {\n\treturn x\n}\n",
        "    return x\n",
        "    if x == nil {\n        return y\n    }\n    return x\n",
        "func f() {\n\tif x == nil {\n\t\treturn y\n\t}\n\treturn x\n}\n",
        level=3,
    ),
    Case(
        "blank line in re-indented target",
        "class A:\n    def f(self):\n        a()\n",
        "def f(self):\n    a()",
        "def f(self):\n    a()\n\ndef g(self):\n    b()",
        "class A:\n    def f(self):\n        a()\n\n    def g(self):\n        b()\n",
        level=4,
    ),
    Case(
        "tab prefix added",
        "\tfunc() {\n\t\tx()\n\t\ty()\n\t}\n",
        "x()\ny()",
        "x()\nif ok {\n\tz()\n}",
        "\tfunc() {\n\t\tx()\n\t\tif ok {\n\t\t\tz()\n\t\t}\n\t}\n",
        level=4,
    ),
    Case(
        "2-space source, 4-space file, deeper base",
        "class A:\n    def f(self):\n        return 1\n",
        "  def f(self):\n    return 1",
        "  def f(self):\n    return 2\n\n  def g(self):\n    return 3",
        "class A:\n    def f(self):\n        return 2\n\n    def g(self):\n        return 3\n",
        level=4,
    ),
    Case(
        "unit and offset change",
        "    if a:\n        b()\n",
        "if a:\n  b()",
        "if a:\n  if c:\n    b()",
        "    if a:\n        if c:\n            b()\n",
        level=4,
    ),
    refuse(
        "target indentation does not fit the unit",
        "def f():\n  a()\n  if b:\n    c()\n",
        "def f():\n    a()\n    if b:\n        c()",
        "def f():\n    a()\n    if b:\n        c()\n         d()",
        "indentation",
        4,
        message=(
            "Error: file.txt was not changed: source_text matched at line 1 only when ignoring "
            "indentation (level 4, indentation-insensitive), and the indentation of target_text "
            "cannot be mapped onto the file's: source_text's indentation (columns 0, 4, 8) is "
            "the file's (columns 0, 2, 4), which leaves no place for target_text's (columns 0, "
            "4, 8, 9). Copy source_text and target_text with the file's exact indentation."
        ),
    ),
    refuse(
        "target dedented below the file's margin",
        "def f():\n    a()\n    b()\n",
        "        a()\n        b()",
        "a()\nb()",
        "indentation",
        4,
    ),
    refuse(
        "structure differs: line would move into a block",
        "if a:\n    x()\ny()\n",
        "if a:\n    x()\n    y()",
        "if a:\n    x()\n    z()",
        "not_found",
        5,
    ),
    refuse(
        "structure differs: flattened block",
        "def f():\n    a()\n    b()\n",
        "def f():\na()\nb()",
        "def f():\na()\nc()",
        "not_found",
        5,
    ),
]

PARTIAL_INDENTATION = [
    Case("first line copied without indentation", "    if a:\n        b()\n", "if a:\n        b()",
         "if a:\n        c()", "    if a:\n        c()\n"),
    Case("first line over-indented", "def f():\n    return 1\n", "  def f():\n    return 1",
         "  def f():\n    return 2", "def f():\n    return 2\n", level=3),
    Case("last line lacks indentation, tabs file", "\tif a {\n\t\tb()\n\t}\n",
         "    if a {\n        b()\n    }", "    if a {\n        c()\n    }",
         "\tif a {\n\t\tc()\n\t}\n", level=4),
    Case("one-line source inside the file's indentation", "class A:\n    def f(self):\n"
         "        return 1\n", "  return 1", "  if x:\n    return 2\n  return 1",
         "class A:\n    def f(self):\n        if x:\n            return 2\n        return 1\n",
         message="Edited file.txt\n(matched at level 1: exact; re-indented)"),
    Case("first line drifted, inner lines unindented", "if a:\n    b()\nc()\n",
         "\tb()\nc()", "\tb()\n\tb2()\nc()", "if a:\n    b()\n    b2()\nc()\n", level=3),
    Case("first line slip, indented inner lines exact", "def f():\n    return 1\n",
         "  def f():\n    return 1", "  def f():\n    if x:\n        return 2\n    return 1",
         "def f():\n    if x:\n        return 2\n    return 1\n", level=3),
    Case("tab target lines into a space file at level 4", "def f():\n    a()\n",
         "def f():  \n    a()", "def f():\n\ta()\n\tif b:\n\t\tc()",
         "def f():\n    a()\n    if b:\n        c()\n", level=4),
    Case("tab target lines into a space file at level 3", "def f():\n    a()\n",
         "\n    a()  \n", "\n    a()\n\tb()\n", "def f():\n    a()\n    b()\n", level=3),
    Case("exact match keeps a tab target as written", "all:\n    x\n", "all:\n",
         "all:\n\tcc -o x\n", "all:\n\tcc -o x\n    x\n"),
    refuse("only one line dedented", "def f():\n    a()\n    b()\n", "    a()\nb()", "    a()\nc()",
           "not_found", 5),
    Case("one line with other indentation", "\t\treturn x\n", "    return x", "    return y",
         "\t\treturn y\n", level=3),
]

PYTHON = [
    Case("python: rename parameter", "def area(w, h):\n    return w * h\n",
         "def area(w, h):\n    return w * h", "def area(width, height):\n    return width * height",
         "def area(width, height):\n    return width * height\n", path="geo.py"),
    Case("python: docstring edit", 'def f():\n    """Old."""\n    pass\n', '"""Old."""',
         '"""New text."""', 'def f():\n    """New text."""\n    pass\n'),
    Case("python: decorator added at level 4",
         "class A:\n    @property\n    def x(self):\n        return 1\n",
         "@property\ndef x(self):\n    return 1",
         "@property\n@cache\ndef x(self):\n    return 1",
         "class A:\n    @property\n    @cache\n    def x(self):\n        return 1\n", level=4),
    Case("python: same line in two methods, unique with context",
         "def a():\n    return None\n\ndef b():\n    return None\n",
         "def b():\n    return None", "def b():\n    return 0",
         "def a():\n    return None\n\ndef b():\n    return 0\n"),
    Case("python: f-string with braces", "msg = f'{a}'\n", "f'{a}'", "f'{a!r} {{b}}'",
         "msg = f'{a!r} {{b}}'\n"),
    Case("python: nested function re-indented", "def outer():\n    def inner():\n        pass\n",
         "def inner():\n  pass", "def inner():\n  for i in x:\n    yield i",
         "def outer():\n    def inner():\n        for i in x:\n            yield i\n", level=4),
]

GO = [
    Case("go: error check added", "func f() error {\n\tx := g()\n\treturn nil\n}\n",
         "\tx := g()\n", "\tx, err := g()\n\tif err != nil {\n\t\treturn err\n\t}\n",
         "func f() error {\n\tx, err := g()\n\tif err != nil {\n\t\treturn err\n\t}\n"
         "\treturn nil\n}\n", path="main.go"),
    Case("go: spaces source for tabbed struct", "type T struct {\n\tA int\n\tB string\n}\n",
         "type T struct {\n    A int\n    B string\n}",
         "type T struct {\n    A int\n    B string\n    C bool\n}",
         "type T struct {\n\tA int\n\tB string\n\tC bool\n}\n", level=4),
    Case("go: import block", 'import (\n\t"fmt"\n\t"os"\n)\n', '\t"fmt"\n', '\t"fmt"\n\t"io"\n',
         'import (\n\t"fmt"\n\t"io"\n\t"os"\n)\n'),
    Case("go: switch case with gofmt alignment",
         "switch x {\ncase 1:\n\ta()\ncase 2:\n\tb()\n}\n",
         "case 2:\n    b()", "case 2:\n    b()\ncase 3:\n    c()",
         "switch x {\ncase 1:\n\ta()\ncase 2:\n\tb()\ncase 3:\n\tc()\n}\n", level=4),
    Case("go: crlf file with tabs", b"func f() {\r\n\treturn\r\n}\r\n",
         "func f() {\n    return\n}", "func f() {\n    g()\n    return\n}",
         b"func f() {\r\n\tg()\r\n\treturn\r\n}\r\n", level=4),
    Case("go: comment line fragment", "// Deprecated: use G.\nfunc F() {}\n", "use G.",
         "use H instead.", "// Deprecated: use H instead.\nfunc F() {}\n"),
]

JSON = '{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": {\n    "test": "jest"\n  }\n}\n'
YAML = "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"

JSON_YAML = [
    Case("json: value change", JSON, '"version": "1.0.0"', '"version": "1.1.0"',
         JSON.replace("1.0.0", "1.1.0"), path="package.json"),
    Case("json: 4-space source for 2-space file", JSON, '"scripts": {\n    "test": "jest"\n}',
         '"scripts": {\n    "test": "jest",\n    "lint": "eslint ."\n}',
         JSON.replace('"jest"\n', '"jest",\n    "lint": "eslint ."\n'), level=4),
    Case("json: key added after anchor", JSON, '  "name": "app",\n',
         '  "name": "app",\n  "private": true,\n',
         JSON.replace('"app",\n', '"app",\n  "private": true,\n')),
    Case("yaml: step added at level 4", YAML, "steps:\n  - run: make",
         "steps:\n  - run: make\n  - run: make test",
         YAML + "      - run: make test\n", level=4, path="ci.yml"),
    Case("yaml: dedented source", YAML, "build:\n  runs-on: ubuntu-latest",
         "build:\n  runs-on: ubuntu-24.04", YAML.replace("ubuntu-latest", "ubuntu-24.04"),
         level=4),
    refuse("yaml: same key in two blocks", "a:\n  x: 1\nb:\n  x: 1\n", "x: 1", "x: 2",
           "ambiguous", 1),
]

BODY = "def f():\n    a = 1\n    b = 2\n"

CURSOR = [
    Case("one unindented source line, the target typed from the cursor", BODY, "b = 2 ",
         "c = 3\n    b = 2", "def f():\n    a = 1\n    c = 3\n    b = 2\n", level=3),
    Case("one unindented source line, the whole target unindented", BODY, "b = 2 ",
         "c = 3\nb = 2", "def f():\n    a = 1\n    c = 3\n    b = 2\n", level=3),
]

GAPPED = "def f():\n    a = 1\n\n    b = 2\n    c = 3\n"

BLANKS = [
    Case("a blank line the source left out, restored by the target: kept once", GAPPED,
         "    a = 1\n    b = 2", "    a = 1\n\n    b = 7",
         GAPPED.replace("b = 2", "b = 7"), level=4),
]

GNU = "int\nf (void)\n{\n  if (x)\n    {\n      a ();\n\t  b ();\n    }\n}\n"

MIXED = [
    Case("GNU style, a slip past the exact level, the target typed exactly", GNU,
         "      a ();\n\t  b (); ", "      a ();\n\t  b ();\n\t  c ();",
         GNU.replace("\t  b ();\n", "\t  b ();\n\t  c ();\n"), level=3),
    Case("GNU style, tabs expanded in source and target", GNU,
         "      a ();\n          b ();", "      a ();\n          b ();\n          c ();",
         GNU.replace("\t  b ();\n", "\t  b ();\n\t  c ();\n"), level=4),
    Case("GNU style, source and target shifted a step", GNU,
         "    a ();\n        b ();", "    a ();\n        b ();\n          d ();",
         GNU.replace("\t  b ();\n", "\t  b ();\n\t    d ();\n"), level=4),
]

TABBED = '{\n\t"a": {\n\t\t"x": 1,\n\t\t"y": 2\n\t},\n\t"b": 3\n}\n'

COLUMNS = [
    Case("source and target at the same column, one in spaces, one in spaces and a tab", TABBED,
         '        "x": 1,\n        "y": 2', '    \t"x": 1,\n    \t"z": 3,\n    \t"y": 2',
         TABBED.replace('"x": 1,\n', '"x": 1,\n\t\t"z": 3,\n'), level=4),
]

NESTED = ("- section 34\n    - section 35\n        - item 36 text\n        - item 37 text\n"
          "        - item 38 text\n- item 40\n")

TABS_FOR_UNITS = [
    # The source lost its indentation (8) and the target indents with a tab: a tab counts 8
    # columns, where the file has the lines, but written as the file's unit it lands at 4, so
    # it is no evidence that the target is typed for the file.
    Case("source without indentation, target a tab deeper", NESTED,
         "- item 37 text\n- item 38 text", "\t- item 37 text\n\t- item 38 text",
         level=4, kind="indentation"),
]

CASES = [
    *INDENTATION, *PARTIAL_INDENTATION, *PYTHON, *GO, *JSON_YAML, *CURSOR, *BLANKS, *MIXED,
    *COLUMNS, *TABS_FOR_UNITS,
]
