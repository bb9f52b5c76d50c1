;;; harness9-problems-test.el --- The other language servers' problems after each edit  -*- lexical-binding: t; -*-

;;; Commentary:

;; A real second language server, `ruff server' (the repository's .venv/bin/ruff, found beside
;; H9_DAEMON), runs through eglot for a Python buffer.  The agent's edit brings an undefined name:
;; the edit's result (what the model reads, and the tool_completed notification) lists ruff's
;; problem with its line; the next edit fixes it: no new problems.

;;; Code:

(require 'ert)
(require 'harness9)
(require 'harness9-test)
(require 'python)

(ert-deftest harness9-test-problems-after-edits ()
  "ruff's problems reach the agent after each edit of a file it checks."
  (let ((ruff (expand-file-name "ruff" (file-name-directory (getenv "H9_DAEMON"))))
        (harness9--published (make-hash-table :test #'equal))
        (python-indent-guess-indent-offset nil)
        (ruff-server nil))
    (should (file-executable-p ruff))
    (harness9-test--with-daemon "problems"
      (with-temp-file (expand-file-name "ruff.toml" ws) (insert "[lint]\nselect = [\"F\"]\n"))
      (with-temp-file (expand-file-name "main.py" ws) (insert "value = 1\nprint(value)\n"))
      (let ((buf (find-file-noselect (expand-file-name "main.py" ws))))
        (unwind-protect
            (progn
              (with-current-buffer buf
                (python-mode)
                (let ((eglot-sync-connect t))
                  (setq ruff-server (eglot '(python-mode) (or (project-current nil ws) (cons 'transient ws)) 'eglot-lsp-server
                                           (list ruff "server") "python")))
                (should (eq (eglot-current-server) ruff-server)))
              (should (equal (plist-get (harness9-run-and-wait "break it, then fix it") :status)
                             "completed"))
              (let ((edits (reverse (seq-filter
                                     (lambda (ev) (and (equal (plist-get ev :kind) "tool_completed")
                                                       (equal (plist-get ev :tool) "edit_file")))
                                     harness9-events))))
                (should (equal (length edits) 2))
                (should (equal (plist-get (nth 0 edits) :diagnostics)
                               [(:path "main.py" :line 2 :column 7 :severity "error"
                                       :message "Undefined name `valeu`" :source "Ruff" :code "F821")]))
                (should (string-suffix-p
                         (concat "New problems in main.py after this edit, as the editor's "
                                 "language servers report them:\n<editor-diagnostics>\n"
                                 "main.py:2:7: error: Undefined name `valeu` (Ruff F821)\n"
                                 "</editor-diagnostics>")
                         (plist-get (nth 0 edits) :output)))
                (should (equal (plist-get (nth 1 edits) :diagnostics) []))
                (should (string-suffix-p "No new problems in main.py."
                                         (plist-get (nth 1 edits) :output))))
              ;; The buffer followed the disk, and the workspace's problems are none now.
              (should (equal (with-current-buffer buf (buffer-string)) "value = 1\nprint(value)\n")))
          (when ruff-server (ignore-errors (eglot-shutdown ruff-server nil 5)))
          (kill-buffer buf))))))

(provide 'harness9-problems-test)
;;; harness9-problems-test.el ends here
