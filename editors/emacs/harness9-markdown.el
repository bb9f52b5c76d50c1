;;; harness9-markdown.el --- The agent's markdown in the *harness9* buffer  -*- lexical-binding: t; -*-

;;; Commentary:

;; `harness9--markdown-lines' shows the markdown of the agent's text, one line of the run view
;; for each line of the text: headings of every level, fenced code blocks fontified by their
;; language's major mode, list items with a bullet by depth (numbers stay), quotes behind a bar,
;; and tables whose rows are padded so the columns line up (drawn with box lines); within lines,
;; the spans of harness9-markdown-inline.el.  The buffer's text stays the markdown the model
;; wrote, only its tables padded: copied, it is markdown.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'subr-x)
(require 'harness9-markdown-inline)
(require 'harness9-markdown-table)

;;;; Code blocks

(defconst harness9--code-modes
  '(("elisp" . emacs-lisp-mode) ("bash" . sh-mode) ("shell" . sh-mode) ("console" . sh-mode)
    ("sh" . sh-mode) ("py" . python-mode) ("js" . js-mode) ("javascript" . js-mode)
    ("ts" . typescript-mode) ("rs" . rust-mode) ("c++" . c++-mode) ("cpp" . c++-mode)
    ("yml" . yaml-mode) ("md" . markdown-mode))
  "Code block languages whose major mode is not named LANGUAGE-mode.")

(defun harness9--code-mode (language)
  "The major mode that fontifies code in LANGUAGE (a code block's info), or nil.
Only modes `auto-mode-alist' names for files: the language comes from the
model, and any other function named *-mode may do more than fontify."
  (let* ((name (downcase (or language "")))
         (mode (or (cdr (assoc name harness9--code-modes))
                   (and (not (string-empty-p name)) (intern-soft (concat name "-mode"))))))
    (and mode (fboundp mode) (rassq mode auto-mode-alist) mode)))

(defvar harness9--code-cache (make-hash-table :test #'equal)
  "Fontified code blocks by (MODE . CODE): the run view is redrawn at every event.")

(defun harness9--fontify (code mode)
  "CODE with the faces MODE's font-lock gives it; as it is when MODE fails on it."
  (condition-case nil
      ;; Quietly: a mode may talk ("Can't guess python-indent-offset").
      (let ((inhibit-message t) (message-log-max nil))
        (with-temp-buffer
          (insert code)
          (delay-mode-hooks (funcall mode)) ; no hooks: no eglot, no linters
          (font-lock-ensure)
          (buffer-string)))
    (error code)))

(defun harness9--fontify-code (code mode)
  "CODE fontified by MODE, kept in `harness9--code-cache'."
  (let ((key (cons mode code)))
    (or (gethash key harness9--code-cache)
        (progn
          (when (> (hash-table-count harness9--code-cache) 200) (clrhash harness9--code-cache))
          (puthash key (harness9--fontify code mode) harness9--code-cache)))))

(defun harness9--code-lines (lines language)
  "The LINES of a code block in LANGUAGE, fontified by its mode when Emacs has one."
  (let* ((mode (harness9--code-mode language))
         (lines (if mode
                    (split-string (harness9--fontify-code (string-join lines "\n") mode) "\n")
                  lines)))
    (mapcar (lambda (line)
              (let ((line (copy-sequence line)))
                (add-face-text-property 0 (length line) 'harness9-code-block t line)
                line))
            lines)))

(defconst harness9--fence "\\`[ \t]*\\(```+\\|~~~+\\)[ \t]*\\([^ \t`]*\\)"
  "A code block's opening fence; group 1 is the fence, 2 the language.")

(defun harness9--md-code-block (lines)
  "The code block LINES start with, shown, and the lines after it: (SHOWN . REST).
It ends at a fence of the same character at least as long, else with LINES."
  (string-match harness9--fence (car lines))
  (let* ((fence (match-string 1 (car lines)))
         (language (match-string 2 (car lines)))
         (close (format "\\`[ \t]*%s%s*[ \t]*\\'"
                        (regexp-quote fence) (regexp-quote (substring fence 0 1))))
         (rest (cdr lines))
         (code nil))
    (while (and rest (not (string-match-p close (car rest))))
      (push (pop rest) code))
    (cons (append (list (propertize (car lines) 'face 'harness9-markup))
                  (harness9--code-lines (nreverse code) language)
                  (when rest (list (propertize (car rest) 'face 'harness9-markup))))
          (cdr rest))))

;;;; Headings, rules, list items

(defconst harness9--md-heading "\\` \\{0,3\\}\\(#\\{1,6\\}\\)\\([ \t]+\\|\\'\\)"
  "An ATX heading; group 1 is its level's marks.")

(defconst harness9--md-rule "\\` \\{0,3\\}\\([-*_]\\)\\(?:[ \t]*\\1\\)\\{2,\\}[ \t]*\\'"
  "A thematic break: three or more of `-', `*' or `_'.")

(defconst harness9--md-item "\\`\\([ \t]*\\)\\([-*+]\\|[0-9]\\{1,9\\}[.)]\\)\\([ \t]+\\|\\'\\)"
  "A list item; groups: the indentation, the bullet or number, the blank after it.")

(defconst harness9--md-definition "\\` \\{0,3\\}\\[\\([^]\n]+\\)\\]:[ \t]*<?\\([^ \t\n>]+\\)"
  "A link reference definition `[label]: target'; groups: the label, the target.")

(defconst harness9--md-quote "\\` \\{0,3\\}>[ \t]?"
  "The mark of a block quote's line.")

(defconst harness9--md-bullets ["•" "◦" "▪" "‣"]
  "The bullets of list items, by depth.")

(defvar harness9--md-items nil
  "The indentations of the list items open at the line being shown, deepest first.")

(defun harness9--md-heading-face (level)
  "The face of a heading of LEVEL."
  (pcase level (1 'harness9-heading-1) (2 'harness9-heading-2) (_ 'harness9-heading)))

(defun harness9--md-heading (line)
  "The heading LINE: its marks (and closing #s) hidden, its text a heading."
  (string-match harness9--md-heading line)
  (let* ((level (- (match-end 1) (match-beginning 1)))
         (text-start (match-end 0))
         (close (and (string-match "[ \t]+#+[ \t]*\\'" line text-start) (match-beginning 0)))
         (shown (concat (substring line 0 text-start)
                        (harness9--markdown-inline (substring line text-start close))
                        (and close (substring line close)))))
    (harness9--markup shown 0 text-start)
    (when close (harness9--markup shown close (length shown)))
    (add-face-text-property text-start (or close (length shown))
                            (harness9--md-heading-face level) t shown)
    shown))

(defun harness9--md-rule (line)
  "The thematic break LINE, drawn as a line."
  (let ((line (copy-sequence line)))
    (harness9--markup line 0 (length line) (propertize (make-string 40 ?─) 'face 'harness9-markup))
    line))

(defun harness9--md-item (line)
  "The list item LINE: its bullet one of `harness9--md-bullets' by its depth."
  (string-match harness9--md-item line)
  (let* ((indent (string-width (replace-regexp-in-string "\t" "    " (match-string 1 line))))
         (marker (copy-sequence (match-string 2 line)))
         (head (match-end 0)))
    (while (and harness9--md-items (>= (car harness9--md-items) indent))
      (pop harness9--md-items))
    (let ((depth (length harness9--md-items)))
      (push indent harness9--md-items)
      (put-text-property 0 (length marker) 'face 'harness9-list-marker marker)
      (when (and harness9-hide-markup (member marker '("-" "*" "+")))
        (put-text-property 0 1 'display
                           (propertize (aref harness9--md-bullets
                                             (mod depth (length harness9--md-bullets)))
                                       'face 'harness9-list-marker)
                           marker))
      (harness9--md-wrap (concat (match-string 1 line) marker (match-string 3 line)
                                 (harness9--markdown-inline (substring line head)))
                         head))))

(defun harness9--md-definition (line)
  "The link reference definition LINE: dimmed, its target a button."
  (string-match harness9--md-definition line)
  (let ((shown (propertize line 'face 'harness9-markup))
        (target (match-string 2 line)))
    (harness9--md-link shown (match-beginning 2) (match-end 2) target)
    shown))

(defun harness9--md-wrap (line width)
  "LINE, its wrapped parts indented like its text.
Its text starts WIDTH characters in (after its indentation and bullet)."
  (let ((width (harness9--shown-width (substring line 0 width))))
    (when (and (> width 0) (not (get-text-property 0 'wrap-prefix line)))
      (put-text-property 0 (length line) 'wrap-prefix (make-string width ?\s) line))
    line))

(defun harness9--md-line (line)
  "LINE, outside blocks of several lines, shown."
  (cond ((string-match-p harness9--md-heading line) (harness9--md-heading line))
        ((string-match-p harness9--md-rule line) (harness9--md-rule line))
        ((string-match-p harness9--md-item line) (harness9--md-item line))
        ((string-match-p harness9--md-definition line) (harness9--md-definition line))
        (t (harness9--md-wrap (harness9--markdown-inline line)
                              (progn (string-match "\\`[ \t]*" line) (match-end 0))))))

(defun harness9--md-paragraph-p (line)
  "Whether LINE is a paragraph's text (a setext heading's text when underlined)."
  (not (or (string-match-p "\\`[ \t]*\\'" line) (string-match-p "\\` \\{4\\}" line)
           (string-match-p harness9--md-heading line) (string-match-p harness9--md-rule line)
           (string-match-p harness9--md-item line) (string-match-p harness9--md-definition line)
           (string-match-p harness9--fence line) (string-match-p harness9--md-quote line))))

(defun harness9--md-setext (lines)
  "The text and underline LINES start with (a heading), shown: (SHOWN . REST)."
  (let* ((level (if (string-match-p "=" (cadr lines)) 1 2))
         (text (harness9--markdown-inline (car lines)))
         (underline (copy-sequence (cadr lines))))
    (add-face-text-property 0 (length text) (harness9--md-heading-face level) t text)
    (harness9--markup underline 0 (length underline)
                      (propertize (make-string (max 1 (harness9--shown-width text))
                                               (if (= level 1) ?═ ?─))
                                  'face 'harness9-markup))
    (cons (list text underline) (cddr lines))))

;;;; Quotes

(defun harness9--md-quote (lines)
  "The block quote LINES start with, shown behind a bar: (SHOWN . REST).
What it quotes is markdown too (a quote in a quote has two bars)."
  (let ((marks nil) (quoted nil))
    (while (and lines (string-match harness9--md-quote (car lines)))
      (push (substring (car lines) 0 (match-end 0)) marks)
      (push (substring (pop lines) (match-end 0)) quoted))
    (cons (cl-mapcar #'harness9--md-quoted (nreverse marks)
                     (harness9--md-blocks (nreverse quoted)))
          lines)))

(defun harness9--md-quoted (mark line)
  "The quoted LINE (already shown) behind its quote MARK."
  (let ((mark (copy-sequence mark))
        (line (copy-sequence line))
        (gt (string-search ">" mark)))
    (harness9--markup mark gt (1+ gt) (propertize "│" 'face 'harness9-markup))
    (add-face-text-property 0 (length line) 'harness9-quote t line)
    (let ((shown (concat mark line)))
      (put-text-property 0 (length shown) 'wrap-prefix
                         (concat (harness9--shown-text mark)
                                 (or (get-text-property 0 'wrap-prefix line) ""))
                         shown)
      shown)))

;;;; The text: its blocks, each shown

(defun harness9--md-block (lines)
  "The first block of LINES shown, and the lines after it: (SHOWN . REST)."
  (let ((line (car lines)))
    ;; Text at the left margin that is no list item ends the lists.
    (unless (or (string-match-p "\\`[ \t]" line) (string-empty-p line)
                (string-match-p harness9--md-item line))
      (setq harness9--md-items nil))
    (cond ((string-match-p harness9--fence line) (harness9--md-code-block lines))
          ((harness9--md-table-p lines) (harness9--md-table lines))
          ((string-match-p harness9--md-quote line) (harness9--md-quote lines))
          ((and (cdr lines) (string-match-p "\\` \\{0,3\\}\\(=+\\|-\\{2,\\}\\)[ \t]*\\'" (cadr lines))
                (harness9--md-paragraph-p line))
           (harness9--md-setext lines))
          (t (cons (list (harness9--md-line line)) (cdr lines))))))

(defun harness9--md-blocks (lines)
  "LINES of markdown shown: one line for each."
  (let ((harness9--md-items nil)
        (shown nil))
    (while lines
      (let ((block (harness9--md-block lines)))
        (setq shown (append (reverse (car block)) shown)
              lines (cdr block))))
    (nreverse shown)))

(defun harness9--md-collect-references (lines)
  "The link reference definitions among LINES, as (LABEL . TARGET).
The labels are downcased: a reference matches whatever its case."
  (delq nil (mapcar (lambda (line)
                      (when (string-match harness9--md-definition line)
                        (cons (downcase (match-string 1 line)) (match-string 2 line))))
                    lines)))

(defvar harness9--markdown-cache (make-hash-table :test #'equal)
  "Shown texts by (HIDE . TEXT): the run view is redrawn at every event.")

(defun harness9--markdown-lines (text)
  "The lines of the agent's TEXT with its markdown shown, one for each line of it.
Faces for headings, emphasis, code, links, quotes and lists; code blocks
fontified by their language's mode; tables lined up.  The marks are dimmed,
hidden when `harness9-hide-markup'."
  (let ((key (cons harness9-hide-markup text)))
    (copy-sequence
     (or (gethash key harness9--markdown-cache)
         (let* ((lines (split-string text "\n"))
                (harness9--md-references (harness9--md-collect-references lines)))
           (when (> (hash-table-count harness9--markdown-cache) 200)
             (clrhash harness9--markdown-cache))
           (puthash key (harness9--md-blocks lines) harness9--markdown-cache))))))

(provide 'harness9-markdown)
;;; harness9-markdown.el ends here
