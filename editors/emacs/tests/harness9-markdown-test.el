;;; harness9-markdown-test.el --- The agent's markdown in the run view  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded by editors/emacs/test.sh.  The markdown of the agent's text as the run view shows it:
;; each test renders a text with `harness9--markdown-lines' and checks the lines as the screen
;; shows them (`harness9--shown-text': invisible marks left out, `display' strings in), the
;; faces, and the text itself (still markdown).

;;; Code:

(require 'ert)
(require 'harness9)

(defun harness9-markdown-test--shown (text)
  "TEXT's lines as the run view shows them."
  (mapcar #'harness9--shown-text (harness9--markdown-lines text)))

(defun harness9-markdown-test--faces (line text)
  "The faces at the first character of TEXT in the shown LINE, as a list."
  (let ((at (string-search text line)))
    (should at)
    (ensure-list (get-text-property at 'face line))))

(ert-deftest harness9-test-markdown-inline ()
  "Emphasis nests either way; code spans, escapes and words with `_' hold no emphasis."
  (should (equal (harness9-markdown-test--shown
                  (concat "*a **b** c* and **d *e* f**, ***g***, ~~h~~, __i__ _j_\n"
                          "`x * y` and ``a ` b`` and \\*k\\* and snake_case_name 2 * 3 * 4"))
                 '("a b c and d e f, g, h, i j"
                   "x * y and a ` b and *k* and snake_case_name 2 * 3 * 4")))
  (let ((line (car (harness9--markdown-lines "*a **b** c* and **d *e* f** ***g*** ~~h~~"))))
    (should (equal (harness9-markdown-test--faces line "a ") '(italic)))
    (should (equal (harness9-markdown-test--faces line "b*") '(italic bold)))
    (should (equal (harness9-markdown-test--faces line "d *e") '(bold)))
    (should (equal (harness9-markdown-test--faces line "e*") '(italic bold)))
    (should (equal (harness9-markdown-test--faces line "g*") '(bold italic)))
    (should (equal (get-text-property (string-search "h~" line) 'face line) '(:strike-through t)))
    (should (equal (harness9-markdown-test--faces line "**") '(harness9-markup))))
  (let ((line (car (harness9--markdown-lines "`x * y` snake_case_name"))))
    (should (equal (harness9-markdown-test--faces line "x *") '(harness9-code)))
    (should-not (get-text-property (string-search "case" line) 'face line))))

(ert-deftest harness9-test-markdown-links ()
  "Links, images, references, <autolinks> and bare URLs show their text; each is a button
with its target, which opens a file of the workspace at its line or a URL in the browser."
  (let* ((text (concat "See [the docs](https://example.com/a_b \"Docs\"), ![a plot](plot.png),\n"
                       "[the parser][p], <https://x.org/y> and https://z.org/w_v.\n"
                       "[p]: src/parse.py#L2"))
         (lines (harness9--markdown-lines text)))
    (should (equal (mapcar #'harness9--shown-text lines)
                   '("See the docs, a plot,"
                     "the parser, https://x.org/y and https://z.org/w_v."
                     "[p]: src/parse.py#L2")))
    (should (equal (mapcar (lambda (link)
                             (get-text-property (string-search link (string-join lines "\n"))
                                                'harness9-target (string-join lines "\n")))
                           '("the docs" "a plot" "the parser" "x.org" "z.org" "src/"))
                   '("https://example.com/a_b" "plot.png" "src/parse.py#L2" "https://x.org/y"
                     "https://z.org/w_v" "src/parse.py#L2")))
    (should (memq 'harness9-link (harness9-markdown-test--faces (car lines) "the docs")))
    ;; The sentence's full stop is not part of the URL.
    (should-not (get-text-property (1- (length (nth 1 lines))) 'harness9-target (nth 1 lines))))
  (let ((dir (file-name-as-directory (make-temp-file "harness9-links" t)))
        (opened nil))
    (unwind-protect
        (with-temp-buffer
          (make-directory (expand-file-name "src" dir))
          (with-temp-file (expand-file-name "src/parse.py" dir) (insert "one\ntwo\nthree\n"))
          (setq default-directory dir)
          (insert (string-join (harness9--markdown-lines "[parser](src/parse.py#L2) <https://x.org>")
                               "\n"))
          (let ((view (current-buffer))
                (file (progn (push-button (next-button (point-min))) (current-buffer))))
            (should (equal (buffer-file-name file) (expand-file-name "src/parse.py" dir)))
            (should (equal (thing-at-point 'line t) "two\n"))
            (kill-buffer file)
            (set-buffer view))
          (let ((browse-url-browser-function (lambda (url &rest _) (setq opened url))))
            (push-button (next-button (button-end (next-button (point-min)))))
            (should (equal opened "https://x.org"))))
      (delete-directory dir t))))

(ert-deftest harness9-test-markdown-headings ()
  "Headings of every level, ATX and setext: their marks hidden, a face by level."
  (let ((lines (harness9--markdown-lines
                "# One\n## Two ##\n### Three\n###### Six\nTitle\n=====\nSub\n---\n#no heading")))
    (should (equal (mapcar #'harness9--shown-text lines)
                   '("One" "Two" "Three" "Six" "Title" "═════" "Sub" "───" "#no heading")))
    (should (equal (mapcar (lambda (line) (get-text-property (1- (length line)) 'face line))
                           (seq-take lines 5))
                   '(harness9-heading-1 harness9-markup harness9-heading harness9-heading
                                        harness9-heading-1)))
    (should (eq (get-text-property 0 'face (nth 6 lines)) 'harness9-heading-2))
    (should (equal (nth 1 lines) "## Two ##"))))

(ert-deftest harness9-test-markdown-lists-and-quotes ()
  "Bullets by depth, numbers kept, wrapped lines indented under the text; quotes behind bars,
quotes in quotes behind two, and what a quote holds is markdown too."
  (let ((lines (harness9--markdown-lines
                (concat "- one\n  - two\n    * three\n      + four\n- back\n"
                        "1. first\n2) second\n   - under second\nText ends the list.\n"
                        "- new list\n\n"
                        "> said **this**\n> > and that\n> - a point\n>\n> ```sh\n> ls\n> ```"))))
    (should (equal (mapcar #'harness9--shown-text lines)
                   '("• one" "  ◦ two" "    ▪ three" "      ‣ four" "• back"
                     "1. first" "2) second" "   ◦ under second" "Text ends the list."
                     "• new list" ""
                     "│ said this" "│ │ and that" "│ • a point" "│" "│ ```sh" "│ ls" "│ ```")))
    (should (equal (get-text-property 0 'wrap-prefix (nth 1 lines)) "    "))
    (should (equal (get-text-property 0 'wrap-prefix (nth 7 lines)) "     "))
    (should (equal (get-text-property 0 'wrap-prefix (nth 13 lines)) "│   "))
    (should (eq (get-text-property 0 'face (get-text-property 0 'display (car lines)))
                'harness9-list-marker))
    (should (equal (harness9-markdown-test--faces (nth 11 lines) "said") '(harness9-quote)))
    (should (equal (harness9-markdown-test--faces (nth 11 lines) "this") '(bold harness9-quote)))
    (should (memq 'harness9-code-block (harness9-markdown-test--faces (nth 16 lines) "ls")))))

(ert-deftest harness9-test-markdown-tables ()
  "A table's columns line up as its delimiter row aligns them, wide characters and hidden
marks counted as the screen shows them; the header is bold; the text stays a table."
  (let ((lines (harness9--markdown-lines
                (concat "| Name | Size | Kind |\n|:-----|-----:|:---:|\n"
                        "| **a.py** | 12 | file |\n| 漢字 | 3 | `x|y` |\n| c \\| d | 1 |\n"
                        "after"))))
    (should (equal (mapcar #'harness9--shown-text lines)
                   '("│ Name  │ Size │ Kind │"
                     "├───────┼──────┼──────┤"
                     "│ a.py  │   12 │ file │"
                     "│ 漢字  │    3 │ x|y  │"
                     "│ c | d │    1 │      │"
                     "after")))
    (should (equal (seq-take lines 2) '("| Name  | Size | Kind |" "|:------|-----:|:----:|")))
    (should (memq 'bold (harness9-markdown-test--faces (car lines) "Size"))))
  ;; Marks shown: the same table with its `|'s, padded to the marks' widths too.
  (let ((harness9-hide-markup nil))
    (should (equal (harness9-markdown-test--shown "a | b\n--- | ---\n**x** | y")
                   '("| a     | b |" "|-------|---|" "| **x** | y |"))))
  ;; No delimiter row, or one of another width: no table.
  (should (equal (harness9-markdown-test--shown "a | b\nc | d\n\na | b\n|---|---|---|")
                 '("a | b" "c | d" "" "a | b" "|---|---|---|"))))

(ert-deftest harness9-test-markdown-code-blocks ()
  "A block ends at a fence of its own character, as long or longer; an unclosed one is code
to the end.  `harness9-hide-markup' nil shows every mark."
  (should (equal (harness9-markdown-test--shown
                  "~~~md\n```\n**not bold**\n~~~\n````\n```\n`` ` ``\n````\n```python\nx = 1")
                 '("~~~md" "```" "**not bold**" "~~~" "````" "```" "`` ` ``" "````"
                   "```python" "x = 1")))
  (let ((harness9-hide-markup nil))
    (should (equal (harness9-markdown-test--shown "## A **b** `c` [d](e)\n- f\n> g\n***")
                   '("## A **b** `c` [d](e)" "- f" "> g" "***")))))

(provide 'harness9-markdown-test)
;;; harness9-markdown-test.el ends here
