;;; harness9-edit-test.el --- The agent's edits of open buffers, and their diffs  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded after harness9-test.el by editors/emacs/test.sh.  An agent edit of a synced buffer
;; (`workspace/applyEdit', then the same text on disk) leaves the buffer unmodified, as it
;; matches its file, and `undo' makes it modified again (it then differs from the disk).  eglot
;; asks nothing before the edit (the daemon's approval asked already), with its confirmation
;; setting left as the user has it.  The *harness9* buffer shows the edit's diff under its row.

;;; Code:

(require 'ert)
(require 'harness9)
(require 'harness9-test)

(defun harness9-edit-test--disk (file)
  "The text of FILE on disk."
  (with-temp-buffer (insert-file-contents file) (buffer-string)))

(defmacro harness9-edit-test--no-questions (questions &rest body)
  "Run BODY with every yes/no question pushed onto QUESTIONS and answered by an error."
  (declare (indent 1))
  `(cl-letf (((symbol-function 'y-or-n-p)
              (lambda (prompt &rest _) (push prompt ,questions) (error "Asked: %s" prompt)))
             ((symbol-function 'yes-or-no-p)
              (lambda (prompt &rest _) (push prompt ,questions) (error "Asked: %s" prompt))))
     ,@body))

(ert-deftest harness9-test-edit-leaves-buffer-saved ()
  "After the agent's edit the buffer matches the disk and is unmodified; `undo' modifies it.
eglot's own question before a server's edit is not asked for the daemon's (the user's
setting, `confirm', stays as it is)."
  (let ((harness9-synced-modes '(text-mode))
        (questions nil))
    (should (eq eglot-confirm-server-initiated-edits 'confirm)) ; eglot's default: ask
    (harness9-test--with-daemon "undo"
      (let* ((file (expand-file-name "b.txt" ws))
             (buf (progn (with-temp-file file (insert "alpha\nbeta\ngamma\n"))
                         (find-file-noselect file))))
        (unwind-protect
            (with-current-buffer buf
              (should (eglot-managed-p))
              (harness9-edit-test--no-questions questions
                (should (equal (plist-get (harness9-run-and-wait "shout") :status) "completed")))
              (should-not questions)
              (should (eq eglot-confirm-server-initiated-edits 'confirm))
              (should (equal (buffer-string) "ALPHA\nbeta\nGAMMA\n"))
              (should (equal (harness9-edit-test--disk file) (buffer-string)))
              (should-not (buffer-modified-p))
              (should (verify-visited-file-modtime buf))
              (undo-boundary)
              (undo)
              (should (equal (buffer-string) "alpha\nbeta\ngamma\n"))
              (should (equal (harness9-edit-test--disk file) "ALPHA\nbeta\nGAMMA\n"))
              ;; The buffer differs from its file: Emacs asks before it is killed or quit.
              (should (buffer-modified-p)))
          (with-current-buffer buf (set-buffer-modified-p nil))
          (kill-buffer buf))))))

;; The run view: an edit's diff under its row, in faces readable on any background (see
;; harness9-theme-test.el), and the model's markdown shown: its marks hidden, its tables lined up
;; (the text stays markdown).

(defun harness9-edit-test--face-at (text)
  "The face at the first character of the first TEXT in the *harness9* buffer."
  (harness9-edit-test--property-at text 'face))

(defun harness9-edit-test--property-at (text property)
  "PROPERTY of the first character of the first TEXT in the *harness9* buffer."
  (with-current-buffer (harness9-buffer)
    (goto-char (point-min))
    (should (search-forward text nil t))
    (get-text-property (match-beginning 0) property)))

(defun harness9-edit-test--shown ()
  "The lines of the *harness9* buffer as the screen shows them (hidden marks left out)."
  (split-string (replace-regexp-in-string
                 "[0-9]+ ms)" "N ms)"
                 (with-current-buffer (harness9-buffer) (harness9--shown-text (buffer-string))))
                "\n"))

(ert-deftest harness9-test-view-diff-and-markdown ()
  "The edit's row has its diff under it; the turn's markdown is shown: headings, emphasis,
code, a code block in its mode's faces, lists, a link that opens its file, a quote, a table."
  (harness9-test--with-daemon "markdown"
    (with-temp-file (expand-file-name "b.txt" ws) (insert "alpha\nbeta\ngamma\n"))
    (should (equal (plist-get (harness9-run-and-wait "shout") :status) "completed"))
    (let ((lines (split-string (harness9-test--text) "\n")))
      (should (equal (seq-take lines 10)
                     '("» shout"
                       "── turn 1"
                       "  ✓ edit_file: b.txt  (N ms)"
                       "    ┆ @@ -1,3 +1,3 @@"
                       "    ┆ -alpha"
                       "    ┆ +ALPHA"
                       "    ┆  beta"
                       "    ┆ -gamma"
                       "    ┆ +GAMMA"
                       "    │ Edited b.txt")))
      ;; The buffer's text is the model's markdown, the table's rows padded.
      (should (equal (seq-take (nthcdr 12 lines) 17)
                     '("── turn 2" "## Done" "Some **bold**, *italic* and `code`." "```elisp"
                       "(defun shout () (upcase \"b\"))" "```" "The end." "# Summary"
                       "- changed **b.txt**"
                       "  - see [b.txt](b.txt#L3) and <https://example.com/docs>"
                       "1. `alpha` → `ALPHA`" "> Quoted *advice*"
                       ;; Padded to the widths shown: `a|b` takes 3 columns.
                       "| file  | lines |" "|-------|------:|" "| b.txt |     2 |"
                       "| `a|b`   |    10 |"
                       "■ completed · 2 turns · 1 tool call · N in / N out tokens"))))
    ;; On the screen the marks are gone, bullets and bars drawn, the columns lined up.
    (should (equal (seq-take (nthcdr 12 (harness9-edit-test--shown)) 16)
                   '("── turn 2" "Done" "Some bold, italic and code." "```elisp"
                     "(defun shout () (upcase \"b\"))" "```" "The end." "Summary"
                     "• changed b.txt"
                     "  ◦ see b.txt and https://example.com/docs"
                     "1. alpha → ALPHA" "│ Quoted advice"
                     "│ file  │ lines │" "├───────┼───────┤" "│ b.txt │     2 │"
                     "│ a|b   │    10 │")))
    (should (eq (harness9-edit-test--face-at "-alpha") 'harness9-diff-removed))
    (should (eq (harness9-edit-test--face-at "+ALPHA") 'harness9-diff-added))
    (should (eq (harness9-edit-test--face-at "@@ -1") 'harness9-diff-hunk-header))
    (should (eq (harness9-edit-test--face-at " beta") 'harness9-diff-context))
    (should (eq (harness9-edit-test--face-at "Done") 'harness9-heading-2))
    (should (eq (harness9-edit-test--face-at "Summary") 'harness9-heading-1))
    (should (eq (harness9-edit-test--face-at "## ") 'harness9-markup))
    (should (eq (harness9-edit-test--property-at "## " 'invisible) t))
    (should (eq (harness9-edit-test--face-at "bold**") 'bold))
    (should (eq (harness9-edit-test--face-at "italic*") 'italic))
    (should (eq (harness9-edit-test--face-at "code`") 'harness9-code))
    ;; The code block: its language's faces (emacs-lisp-mode's), over the block's own.
    (should (equal (harness9-edit-test--face-at "(defun") 'harness9-code-block))
    (should (equal (harness9-edit-test--face-at "defun") '(font-lock-keyword-face harness9-code-block)))
    (should (equal (harness9-edit-test--face-at "shout ()") '(font-lock-function-name-face harness9-code-block)))
    (should-not (harness9-edit-test--face-at "The end"))
    (should (memq 'harness9-quote (ensure-list (harness9-edit-test--face-at "advice"))))
    (should (memq 'bold (ensure-list (harness9-edit-test--face-at "file "))))
    (should (equal (harness9-edit-test--property-at "https://example.com" 'harness9-target)
                   "https://example.com/docs"))
    ;; The link to a file is a button: RET on it visits the file at the line it names.
    (let ((link (with-current-buffer (harness9-buffer)
                  (goto-char (point-min))
                  (search-forward "[b.txt]")
                  (1+ (match-beginning 0)))))
      (let ((file (with-current-buffer (harness9-buffer)
                    (goto-char link)
                    (should (button-at (point)))
                    (call-interactively (key-binding (kbd "RET")))
                    (current-buffer))))
        (with-current-buffer file
          (should (equal (buffer-file-name) (expand-file-name "b.txt" ws)))
          (should (equal (thing-at-point 'line t) "GAMMA\n")))
        (kill-buffer file)))))

(ert-deftest harness9-test-code-block-modes ()
  "A code block's language picks a major mode for files only: the model names it."
  (should (eq (harness9--code-mode "elisp") 'emacs-lisp-mode))
  (should (eq (harness9--code-mode "Emacs-Lisp") 'emacs-lisp-mode))
  (should-not (harness9--code-mode "server")) ; `server-mode' would start the Emacs server
  (should-not (harness9--code-mode "no-such-language"))
  (should-not (harness9--code-mode "")))

(ert-deftest harness9-test-view-diff-is-cut ()
  "An edit's diff longer than `harness9-diff-lines' ends with how many lines are left out."
  (let ((harness9-diff-lines 2))
    (harness9-test--with-daemon "markdown"
      (with-temp-file (expand-file-name "b.txt" ws) (insert "alpha\nbeta\ngamma\n"))
      (should (equal (plist-get (harness9-run-and-wait "shout") :status) "completed"))
      (should (equal (seq-take (cddr (split-string (harness9-test--text) "\n")) 5)
                     '("  ✓ edit_file: b.txt  (N ms)"
                       "    ┆ @@ -1,3 +1,3 @@"
                       "    ┆ -alpha"
                       "    ┆ … 4 more lines"
                       "    │ Edited b.txt"))))))

;; A run's line ends with what it cost, when the model's price is known (`costUsd').

(ert-deftest harness9-test-footer-shows-the-cost ()
  "A usage notification's `costUsd' shows at the end of the finished run's line."
  (let* ((run (harness9--make-run :prompt "go" :id "r-1"))
         (harness9--runs (list run)))
    (harness9--apply '(:runId "r-1" :kind "usage" :totalInputTokens 10000
                       :totalOutputTokens 1000 :costUsd 0.045))
    (setf (harness9--run-status run) "completed"
          (harness9--run-turn-count run) 1 (harness9--run-tool-count run) 0)
    (should (equal (harness9--footer run)
                   "■ completed · 1 turn · 0 tool calls · 10000 in / 1000 out tokens · $0.0450"))
    (setf (harness9--run-cost run) nil)
    (should-not (string-match-p "\\$" (harness9--footer run)))))

;; The prompt buffer: a multi-line prompt written in a buffer, C-c C-c sends it, C-c C-k
;; throws it away.

(ert-deftest harness9-test-prompt-buffer ()
  "`harness9-prompt': C-c C-k closes it unsent; C-c C-c runs its two lines as one prompt."
  (should (eq 'harness9-prompt (key-binding (kbd "C-c h i"))))
  (harness9-test--with-daemon "run"
    (let ((buffer (harness9-prompt)))
      (should (eq (current-buffer) buffer))
      (should (eq (window-buffer (selected-window)) buffer))
      (insert "not this")
      (call-interactively (key-binding (kbd "C-c C-k")))
      (should-not (buffer-live-p buffer))
      (should-not harness9--runs))
    (let ((buffer (harness9-prompt)))
      (should (equal (buffer-string) "")) ; the cancelled text is gone
      (insert "  \n")
      (should-error (call-interactively (key-binding (kbd "C-c C-c"))) :type 'user-error)
      (should (buffer-live-p buffer)) ; an empty prompt is not sent: the buffer stays
      (erase-buffer)
      (insert "list the files\nand say what a.txt says\n")
      (call-interactively (key-binding (kbd "C-c C-c")))
      (should-not (buffer-live-p buffer))
      (should (equal (mapcar #'harness9--run-prompt harness9--runs)
                     '("list the files\nand say what a.txt says")))
      (harness9-test--wait "the run to end" (lambda () (null harness9--active)))
      (should (equal (seq-take (split-string (harness9-test--text) "\n") 3)
                     '("» list the files" "  and say what a.txt says" "── turn 1"))))))

(provide 'harness9-edit-test)
;;; harness9-edit-test.el ends here
