;;; harness9-markdown-inline.el --- Inline markdown in the *harness9* buffer  -*- lexical-binding: t; -*-

;;; Commentary:

;; The faces of the agent's markdown and its spans within a line (see harness9-markdown.el for
;; its blocks): code spans, backslash escapes, links and URLs (buttons that open their target),
;; bold, italic and struck-through text.  A mark (`**', a link's `](target)') is dimmed, and
;; hidden when `harness9-hide-markup': made invisible, or shown as other characters through
;; `display'.  `harness9--shown-text' is a line as the screen shows it.

;;; Code:

(require 'button)
(require 'cl-lib)
(require 'seq)
(require 'subr-x)

(defcustom harness9-hide-markup t
  "Whether the marks of the agent's markdown (**, `, #, >, |) are hidden.
Either way its headings, emphasis, code, links, lists and quotes are shown
with faces, and its tables' columns line up."
  :type 'boolean
  :group 'harness9)

(defface harness9-heading '((t :inherit (bold font-lock-function-name-face)))
  "A heading in the agent's text (from level 3; levels 1 and 2 add to it)."
  :group 'harness9)

(defface harness9-heading-1 '((t :inherit harness9-heading :height 1.3 :underline t))
  "A heading of level 1 in the agent's text."
  :group 'harness9)

(defface harness9-heading-2 '((t :inherit harness9-heading :height 1.15))
  "A heading of level 2 in the agent's text."
  :group 'harness9)

(defface harness9-code '((t :inherit font-lock-constant-face))
  "A `code' span in the agent's text."
  :group 'harness9)

(defface harness9-code-block '((t :inherit (fixed-pitch font-lock-constant-face)))
  "The lines of a fenced code block in the agent's text."
  :group 'harness9)

(defface harness9-markup '((t :inherit shadow))
  "The marks of the agent's markdown, a code block's fences and a table's lines."
  :group 'harness9)

(defface harness9-link '((t :inherit link))
  "A link's text in the agent's text: RET or a click opens its target."
  :group 'harness9)

(defface harness9-quote '((t :inherit font-lock-doc-face))
  "The text of a block quote in the agent's text."
  :group 'harness9)

(defface harness9-list-marker '((t :inherit font-lock-keyword-face))
  "A list item's bullet or number in the agent's text."
  :group 'harness9)

;;;; What a line looks like once its marks are hidden

(defun harness9--shown-text (string)
  "STRING as the screen shows it: invisible text left out, `display' strings in.
Used for widths: a table's columns, a wrapped line's indentation."
  (let ((at 0) (end (length string)) (parts nil))
    (while (< at end)
      (let ((display (get-text-property at 'display string))
            (next (next-property-change at string end)))
        (cond ((stringp display)
               (setq next (next-single-property-change at 'display string end))
               (push display parts))
              ((not (get-text-property at 'invisible string))
               (push (substring string at next) parts)))
        (setq at next)))
    (apply #'concat (nreverse parts))))

(defun harness9--shown-width (string)
  "How many columns STRING takes on the screen (see `harness9--shown-text')."
  (string-width (harness9--shown-text string)))

(defun harness9--markup (string from to &optional shown)
  "Show STRING's characters FROM to TO as markdown's marks: dimmed.
When `harness9-hide-markup', hidden, or shown as the string SHOWN.
Marks are taken: no other span starts or ends in them."
  (put-text-property from to 'face 'harness9-markup string)
  (put-text-property from to 'harness9--taken t string)
  (when harness9-hide-markup
    (put-text-property from to (if shown 'display 'invisible) (or shown t) string)))

(defun harness9--free-p (string from to)
  "Whether no character of STRING from FROM to TO belongs to a mark or code span."
  (not (text-property-not-all from to 'harness9--taken nil string)))

;;;; Inline spans: code, escapes, links, emphasis

(defun harness9--md-code-spans (line)
  "Give LINE's code spans their face; nothing inside them is markdown.
A span opens with a run of backticks and closes with a run as long."
  (let ((start 0))
    (while (string-match "`+" line start)
      (let* ((open (match-beginning 0))
             (ticks (- (match-end 0) open))
             (close (and (not (and (> open 0) (eq (aref line (1- open)) ?\\)))
                         (string-match (format "[^`]\\(`\\{%d\\}\\)\\(?:[^`]\\|\\'\\)" ticks)
                                       line (match-end 0))
                         (match-beginning 1))))
        (if (not close)
            (setq start (+ open ticks))
          (harness9--markup line open (+ open ticks))
          (put-text-property (+ open ticks) close 'face 'harness9-code line)
          (put-text-property (+ open ticks) close 'harness9--taken t line)
          (harness9--markup line close (+ close ticks))
          (setq start (+ close ticks)))))))

(defun harness9--md-escapes (line)
  "Hide the backslash of LINE's escaped punctuation; the character is no mark."
  (let ((start 0))
    (while (string-match "\\\\[]!\"#$%&'()*+,./:;<=>?@[\\^_`{|}~-]" line start)
      (let ((at (match-beginning 0)))
        (setq start (match-end 0))
        (when (harness9--free-p line at (1+ at))
          (harness9--markup line at (1+ at))
          (put-text-property (1+ at) (+ at 2) 'harness9--taken t line))))))

(define-button-type 'harness9-link
  'action #'harness9--follow-link
  'follow-link t
  'mouse-face 'highlight)

(defun harness9--md-link (line from to target)
  "Make LINE's characters FROM to TO a button that opens TARGET."
  (add-face-text-property from to 'harness9-link t line)
  (add-text-properties from to (list 'button '(t)
                                     'category (button-category-symbol 'harness9-link)
                                     'harness9-target target
                                     'help-echo (concat "RET, mouse-1: open " target))
                       line))

(defconst harness9--md-inline-link
  (concat "\\(!?\\[\\)\\([^]\n]+\\)\\(\\](\\(?:<\\([^>\n]*\\)>"
          "\\|\\([^ \t\n()]*\\(?:([^ \t\n()]*)[^ \t\n()]*\\)*\\)\\)"
          "\\(?:[ \t]+\"[^\"\n]*\"\\)?)\\)")
  "A link `[text](target \"title\")' or image `![alt](src)'.
Groups: 1 the opening mark, 2 the text, 3 the rest, 4 or 5 the target.")

(defconst harness9--md-reference-link
  "\\(!?\\[\\)\\([^]\n]+\\)\\(\\]\\(?:\\[\\([^]\n]*\\)\\]\\)?\\)"
  "A reference link `[text][label]', `[text][]' or `[label]'.
Groups: 1 the opening mark, 2 the text, 3 the rest, 4 the label.")

(defvar harness9--md-references nil
  "The link reference definitions of the text being shown: (LABEL . TARGET).")

(defun harness9--md-links (line regexp target-of)
  "Make LINE's links matching REGEXP buttons.
TARGET-OF returns the target of the match (nil: not a link)."
  (let ((start 0))
    (while (string-match regexp line start)
      (let ((target (funcall target-of line))
            (open (match-beginning 1)) (text-end (match-end 2)) (end (match-end 3)))
        (setq start (1+ open))
        (when (and target (harness9--free-p line open (match-end 1))
                   (harness9--free-p line text-end end))
          (harness9--markup line open (match-end 1))
          (harness9--markup line text-end end)
          (harness9--md-link line (match-end 1) text-end target)
          (setq start end))))))

(defun harness9--md-inline-target (line)
  "The target of the inline link just matched in LINE."
  (or (match-string 4 line) (match-string 5 line)))

(defun harness9--md-reference-target (line)
  "The target of the reference link just matched in LINE, if its label is defined."
  (let ((label (match-string 4 line)))
    (cdr (assoc (downcase (if (member label '(nil "")) (match-string 2 line) label))
                harness9--md-references))))

(defun harness9--md-url-end (line from to)
  "Where the bare URL of LINE from FROM to TO ends.
Its closing punctuation ends the sentence, not the URL (a `)' too,
unless the URL has a `(')."
  (let ((url (substring line from to)))
    (string-match (if (string-search "(" url) "[.,;:!?]*\\'" "[.,;:!?)]*\\'") url)
    (+ from (match-beginning 0))))

(defun harness9--md-urls (line)
  "Make LINE's URLs buttons: `<https://…>' (its brackets hidden) and bare ones."
  (let ((start 0))
    (while (string-match (concat "\\(<\\)?\\(\\(?:https?\\|ftp\\|mailto\\|file\\):"
                                 "[^][ \t\n<>\"'`]+\\)\\(>\\)?")
                         line start)
      (let* ((begin (match-beginning 0)) (end (match-end 0)) (from (match-beginning 2))
             (angle (and (match-beginning 1) (match-beginning 3)))
             (to (if angle (match-end 2) (harness9--md-url-end line from (match-end 2)))))
        (setq start (max (1+ from) to))
        (when (harness9--free-p line begin end)
          (when angle
            (harness9--markup line begin from)
            (harness9--markup line to end))
          (harness9--md-link line from to (substring-no-properties line from to))
          (put-text-property from to 'harness9--taken t line))))))

(defconst harness9--md-emphasis
  (let ((inner (lambda (mark)
                 ;; No blank just inside the marks, and no mark's character either.
                 (format "\\([^[:space:]%s]\\|[^[:space:]%s].*?[^[:space:]%s]\\)" mark mark mark))))
    `((,(concat "\\(\\*\\*\\*\\)" (funcall inner "*") "\\(\\*\\*\\*\\)") . (bold italic))
      (,(concat "\\(?:\\`\\|[^*]\\)\\(\\*\\)" (funcall inner "*") "\\(\\*\\)\\(?:[^*]\\|\\'\\)")
       . italic)
      (,(concat "\\(\\*\\*\\)" (funcall inner "*") "\\(\\*\\*\\)") . bold)
      (,(concat "\\(?:\\`\\|[^[:alnum:]_]\\)\\(__\\)" (funcall inner "_")
                "\\(__\\)\\(?:[^[:alnum:]_]\\|\\'\\)")
       . bold)
      (,(concat "\\(?:\\`\\|[^[:alnum:]_]\\)\\(_\\)" (funcall inner "_")
                "\\(_\\)\\(?:[^[:alnum:]_]\\|\\'\\)")
       . italic)
      (,(concat "\\(~~\\)" (funcall inner "~") "\\(~~\\)") . (:strike-through t))))
  "Emphasis as (REGEXP . FACE).
REGEXP's groups: the mark, the text, the closing mark.  A single `*' is
looked for before `**': its marks may not touch another `*', so each of
`*a **b** c*' and `**a *b* c**' finds both.  `_' only between words.")

(defun harness9--md-emphasis (line)
  "Give LINE's bold, italic and struck-through text their faces."
  (pcase-dolist (`(,regexp . ,face) harness9--md-emphasis)
    (let ((start 0))
      (while (string-match regexp line start)
        (let ((open (match-beginning 1)) (close (match-beginning 3)))
          (setq start (1+ open))
          (when (and (harness9--free-p line open (match-end 1))
                     (harness9--free-p line close (match-end 3)))
            (harness9--markup line open (match-end 1))
            (harness9--markup line close (match-end 3))
            (add-face-text-property (match-end 1) close face t line)
            (setq start (match-end 3))))))))

(defun harness9--markdown-inline (line)
  "LINE with its inline markdown shown: code, escapes, links, URLs, emphasis.
Code spans first: nothing in them is markdown; then what may hold emphasis."
  (let ((line (copy-sequence line)))
    (harness9--md-code-spans line)
    (harness9--md-escapes line)
    (harness9--md-links line harness9--md-inline-link #'harness9--md-inline-target)
    (harness9--md-urls line)
    (harness9--md-links line harness9--md-reference-link #'harness9--md-reference-target)
    (harness9--md-emphasis line)
    (remove-list-of-text-properties 0 (length line) '(harness9--taken) line)
    line))

(defun harness9--follow-link (button)
  "Open the target of the link BUTTON (see `harness9-open-link')."
  (harness9-open-link (button-get button 'harness9-target)))

(defun harness9-open-link (target)
  "Open TARGET, a link's target in the agent's text.
A URL goes to `browse-url'; a path (relative to the run buffer's directory,
the workspace root) is visited, at its line when it ends in #L12 or :12."
  (if (string-match-p "\\`[a-zA-Z][a-zA-Z0-9+.-]+:" (string-remove-prefix "file:" target))
      (browse-url target)
    (let* ((path (replace-regexp-in-string "\\`file:\\(//\\)?" "" target))
           (line (and (string-match "\\(?:#L\\|:\\)\\([0-9]+\\)\\'" path)
                      (string-to-number (match-string 1 path))))
           (path (if line (substring path 0 (match-beginning 0)) path)))
      (find-file-other-window (expand-file-name path))
      (when line
        (goto-char (point-min))
        (forward-line (1- line))))))

(provide 'harness9-markdown-inline)
;;; harness9-markdown-inline.el ends here
