;;; harness9-test.el --- Batch tests of harness9.el against the real daemon  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by editors/emacs/test.sh: emacs --batch -l harness9.el -l tests/harness9-test.el
;;   -f ert-run-tests-batch-and-exit, with H9_DAEMON naming the daemon's executable.
;; Each test starts the daemon through eglot with a scripted (replay) model in a fresh
;; workspace, configured through `harness9-initialization-options' (then an empty
;; didChangeConfiguration, as eglot sends on connecting), drives a run, and checks the
;; *harness9* buffer and the notifications.

;;; Code:

(require 'ert)
(require 'harness9)

(defconst harness9-test--dir (file-name-directory (or load-file-name buffer-file-name)))
(defconst harness9-test--timeout 45 "Seconds any wait may take before the test fails.")
(defvar harness9-test--approvals '(:mode "yolo")
  "The `approvals' init option of the daemons the tests start.
Tests about something else run every tool; nil keeps the daemon's default (ask).")

(defun harness9-test--text ()
  "The *harness9* buffer's text with durations and token counts made constant."
  (with-current-buffer (harness9-buffer)
    (thread-last (buffer-string)
      (replace-regexp-in-string "[0-9]+ ms)" "N ms)")
      (replace-regexp-in-string "[0-9]+ in / [0-9]+ out tokens" "N in / N out tokens"))))

(defun harness9-test--wait (what pred)
  "Wait until PRED is true; fail naming WHAT after `harness9-test--timeout' seconds."
  (let ((deadline (+ (float-time) harness9-test--timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (ert-fail (format "timed out after %ss waiting for %s; buffer:\n%s"
                        harness9-test--timeout what (harness9-test--text))))))

(defun harness9-test--check-seqs ()
  "Every run's notifications arrived numbered 1, 2, 3 … without gaps."
  (let ((seen nil))
    (dolist (ev (reverse harness9-events))
      (let* ((id (plist-get ev :runId))
             (want (1+ (or (alist-get id seen nil nil #'equal) 0))))
        (should (equal (list id want) (list id (plist-get ev :seq))))
        (setf (alist-get id seen nil nil #'equal) want)))))

(defun harness9-test--dump (server)
  "Print what helps to understand a failure: the buffer and SERVER's stderr."
  (message "*harness9* buffer:\n%s" (harness9-test--text))
  (let ((stderr (and server (or (get-buffer (format " *%s stderr*" (jsonrpc-name server)))
                                     (get-buffer (format "*%s stderr*" (jsonrpc-name server)))))))
    (when stderr
      (message "daemon stderr:\n%s" (with-current-buffer stderr (buffer-string))))))

(defun harness9-test--empty-configuration (server)
  "Make sure SERVER got an empty didChangeConfiguration after connecting, as eglot sends.
eglot sends it from `eglot-connect-hook'; one more is sent here in case a version does not."
  (should (memq #'eglot-signal-didChangeConfiguration eglot-connect-hook))
  (jsonrpc-notify server :workspace/didChangeConfiguration (list :settings (make-hash-table))))

(defmacro harness9-test--with-daemon (scenario &rest body)
  "Run BODY with a fresh workspace and a daemon replaying tests/replay-SCENARIO.json."
  (declare (indent 1))
  `(let* ((ws (file-name-as-directory (make-temp-file "harness9-ws" t)))
          (default-directory ws)
          ;; Configured as the README says, through initializationOptions; the environment
          ;; names no provider ("VAR" alone removes VAR from a subprocess's environment).
          (harness9-initialization-options
           (append (list :provider "replay"
                         :replayFile (concat harness9-test--dir "replay-" ,scenario ".json"))
                   (when harness9-test--approvals (list :approvals harness9-test--approvals))))
          (process-environment
           (append '("HARNESS9_PROVIDER" "HARNESS9_REPLAY" "HARNESS9_APPROVALS") process-environment))
          (eglot-server-programs
           (cons (list 'harness9-mode 'harness9-lsp-server (getenv "H9_DAEMON") "serve")
                 eglot-server-programs))
          (harness9--runs nil) (harness9--active nil) (harness9-events nil)
          (server nil) (passed nil))
     (with-temp-file (expand-file-name "a.txt" ws) (insert "hello from a.txt\n"))
     (unwind-protect
         (progn (setq server (harness9-connection))
                (harness9-test--empty-configuration server)
                ,@body (setq passed t))
       (unless passed (harness9-test--dump server))
       (when server (ignore-errors (eglot-shutdown server nil 5)))
       (delete-directory ws t))))

(ert-deftest harness9-test-scripted-run ()
  "A whole run through jsonrpc-request: result, notifications, buffer; then a rejected one."
  (harness9-test--with-daemon "run"
    (let ((result (harness9-run-and-wait "list the files")))
      (should (equal (plist-get result :status) "completed"))
      (should (equal (plist-get result :text) "All done: a.txt says hello."))
      (should (equal (plist-get result :toolCalls) 2)))
    (should (equal (harness9-test--text)
                   (string-join
                    '("» list the files"
                      "── turn 1"
                      "I'll look."
                      "  ✓ bash: echo hi  (N ms)"
                      "    │ hi"
                      "  ✓ read_file: a.txt  (N ms)"
                      "    │ hello from a.txt"
                      "── turn 2"
                      "All done: a.txt says hello."
                      "■ completed · 2 turns · 2 tool calls · N in / N out tokens")
                    "\n")))
    (should (equal (plist-get (car harness9-events) :kind) "run_finished"))
    (should (equal (plist-get (car (last harness9-events)) :kind) "run_started"))
    (harness9-test--check-seqs)
    (should-not harness9--active)
    ;; A second run continues the session; params the daemon rejects signal `jsonrpc-error'
    ;; to the caller and end the run with an error line.
    (let ((harness9-run-params '(:maxTurns 0)))
      (should-error (harness9-run-and-wait "and again") :type 'jsonrpc-error))
    (should-not harness9--active)
    (let ((lines (last (split-string (harness9-test--text) "\n") 3)))
      (should (equal (butlast lines) '("" "» and again")))
      (should (string-match-p "\\`■ error: .*maxTurns" (car (last lines)))))))

(ert-deftest harness9-test-failed-command ()
  "A command that exits non-zero is a normal result for the model, a failed row for the user:
a red ✗ with its exit code; one a signal killed, the same with the signal."
  (harness9-test--with-daemon "failing"
    (should (equal (plist-get (harness9-run-and-wait "run the tests") :status) "completed"))
    (let ((completed (seq-find (lambda (ev) (equal (plist-get ev :kind) "tool_completed"))
                               harness9-events)))
      (should (equal (plist-get completed :exitCode) 254))
      (should-not (plist-get completed :reason)))
    (should (member "  ✗ bash: echo boom; exit 254  (exit 254, N ms)"
                    (split-string (harness9-test--text) "\n")))
    (with-current-buffer (harness9-buffer)
      (goto-char (point-min))
      (search-forward "✗ bash:")
      (should (eq (get-text-property (match-beginning 0) 'face) 'error))))
  (let* ((run (harness9--make-run :prompt "go" :id "r-1"))
         (harness9--runs (list run)))
    (harness9--apply '(:runId "r-1" :kind "tool_completed" :turn 1 :toolCallId "c1" :tool "bash"
                       :arguments (:command "./hang") :output "killed by signal SIGKILL (9)"
                       :signal "SIGKILL" :durationMs 7))
    (harness9--apply '(:runId "r-1" :kind "tool_completed" :turn 1 :toolCallId "c2" :tool "bash"
                       :arguments (:command "./check") :output "exit status 9" :exitCode 0
                       :durationMs 5))
    (should (equal (mapcar (lambda (tool) (car (harness9--tool-text tool)))
                           (seq-filter #'harness9--tool-p (harness9--run-blocks run)))
                   '("  ✗ bash: ./hang  (killed (SIGKILL), 7 ms)" "  ✓ bash: ./check  (5 ms)")))))

(ert-deftest harness9-test-cancel ()
  "agent/cancel mid-tool: once it answers, the buffer already shows the cancelled run."
  (harness9-test--with-daemon "cancel"
    (harness9-run "wait for it")
    (harness9-test--wait "the bash tool to start"
                         (lambda () (string-match-p "^  … bash: sleep 30$" (harness9-test--text))))
    (should (eq (harness9-cancel) t))
    ;; No further waiting: the daemon wrote the run's end before the agent/cancel reply.
    (should-not harness9--active)
    (let ((kinds (mapcar (lambda (ev) (plist-get ev :kind)) harness9-events)))
      (should (equal (seq-take kinds 2) '("run_finished" "tool_failed"))))
    (should (equal (plist-get (car harness9-events) :status) "cancelled"))
    (should (equal (plist-get (cadr harness9-events) :reason) "cancelled"))
    (let ((lines (seq-remove (lambda (l) (string-prefix-p "    │ " l))
                             (split-string (harness9-test--text) "\n"))))
      (should (equal (butlast lines) '("» wait for it" "── turn 1" "Waiting."
                                       "  ✗ bash: sleep 30  (cancelled, N ms)")))
      (should (string-prefix-p "■ cancelled" (car (last lines)))))
    (harness9-test--check-seqs)))

(ert-deftest harness9-test-approvals ()
  "Mode ask (the default where bash has no OS sandbox; auto asks nothing here): eglot
answers window/showMessageRequest with `completing-read'.
The first call is allowed, the second rejected, the third's question quit (C-g), which
rejects it too; the buffer and the workspace show all three."
  (let ((harness9-test--approvals '(:mode "ask"))
        (questions nil)
        (answers (list "Allow once" "Reject" 'quit)))
    (harness9-test--with-daemon "approve"
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt collection &rest _)
                   (push (list prompt (all-completions "" collection)) questions)
                   (let ((answer (pop answers)))
                     (if (eq answer 'quit) (signal 'quit nil) answer)))))
        (should (equal (plist-get (harness9-run-and-wait "write three files") :status) "completed")))
      (setq questions (nreverse questions))
      (should (equal (length questions) 3))
      (cl-loop for (prompt) in questions
               for file in '("one" "two" "three")
               do (should (string-match-p (format "harness9 asks to run bash: echo %s > %s\\.txt" file file)
                                          prompt)))
      (should (equal (cadr (nth 0 questions)) '("Allow once" "Allow for this session" "Reject")))
      (should (file-exists-p (expand-file-name "one.txt" ws)))
      (should-not (file-exists-p (expand-file-name "two.txt" ws)))
      (should-not (file-exists-p (expand-file-name "three.txt" ws)))
      (let ((resolved (seq-filter (lambda (ev) (equal (plist-get ev :kind) "approval_resolved"))
                                  (reverse harness9-events))))
        (should (equal (mapcar (lambda (ev) (list (plist-get ev :decision) (plist-get ev :by))) resolved)
                       '(("allow_once" "user") ("reject" "user") ("reject" "user"))))
        ;; Only the allowed call started: the rejected ones were announced by their questions.
        (should (equal (length (seq-filter (lambda (ev) (equal (plist-get ev :kind) "tool_started"))
                                           harness9-events))
                       1)))
      (should (equal (seq-remove (lambda (l) (string-prefix-p "    │ " l))
                                 (split-string (harness9-test--text) "\n"))
                     '("» write three files"
                       "── turn 1"
                       "Writing three files."
                       "  ✓ bash: echo one > one.txt  (allowed once, N ms)"
                       "  ✗ bash: echo two > two.txt  (rejected)"
                       "  ✗ bash: echo three > three.txt  (rejected)"
                       "── turn 2"
                       "One of them."
                       "■ completed · 2 turns · 3 tool calls · N in / N out tokens")))
      (harness9-test--check-seqs))))

;; The agent reads a buffer with unsaved text and edits it through eglot's applyEdit handler.
(ert-deftest harness9-test-apply-edit ()
  "A synced buffer: read_file sees its unsaved line; the agent's edit shows in the buffer
and, the same text, on disk."
  (let ((harness9-synced-modes '(text-mode)))
    (harness9-test--with-daemon "applyedit"
      (let ((buf (find-file-noselect (expand-file-name "a.txt" ws))))
        (unwind-protect
            (with-current-buffer buf
              (should (eglot-managed-p))
              (goto-char (point-max))
              (insert "typed, not saved\n")
              (eglot--signal-textDocument/didChange) ; eglot would send it when idle
              (should (equal (plist-get (harness9-run-and-wait "edit a.txt") :status)
                             "completed"))
              (should (string-match-p "typed, not saved" (harness9-test--text)))
              (harness9-test--wait "the edit in the buffer"
                                   (lambda () (equal (buffer-string)
                                                     "hello from the agent\ntyped, not saved\n")))
              (should (equal (with-temp-buffer
                               (insert-file-contents (expand-file-name "a.txt" ws))
                               (buffer-string))
                             "hello from the agent\ntyped, not saved\n")))
          (with-current-buffer buf (set-buffer-modified-p nil))
          (kill-buffer buf))))))

;; The agent's edit, two spans apart, lands as one step of the buffer's undo: `undo' gives
;; back the user's unsaved text.
(ert-deftest harness9-test-undo ()
  "The buffer shows the agent's two-span edit; one `undo' restores the user's text."
  (let ((harness9-synced-modes '(text-mode))
        (applied nil))
    (harness9-test--with-daemon "undo"
      (with-temp-file (expand-file-name "b.txt" ws) (insert "alpha\nbeta\ngamma\n"))
      (let ((buf (find-file-noselect (expand-file-name "b.txt" ws))))
        (unwind-protect
            (with-current-buffer buf
              (should (eglot-managed-p))
              (goto-char (point-min))
              (insert "# mine\n")
              (undo-boundary) ; as the command loop does after the user's command
              (eglot--signal-textDocument/didChange)
              (cl-letf* ((apply-edits (symbol-function 'eglot--apply-text-edits))
                         ((symbol-function 'eglot--apply-text-edits)
                          (lambda (edits &rest rest)
                            (push (length edits) applied)
                            (apply apply-edits edits rest))))
                (should (equal (plist-get (harness9-run-and-wait "shout") :status) "completed")))
              (should (equal applied '(2))) ; the changed spans only: two edits
              (should (equal (buffer-string) "# mine\nALPHA\nbeta\nGAMMA\n"))
              (should (equal (with-temp-buffer ; the disk has the edited buffer's text
                               (insert-file-contents (expand-file-name "b.txt" ws))
                               (buffer-string))
                             "# mine\nALPHA\nbeta\nGAMMA\n"))
              (undo-boundary)
              (undo)
              (should (equal (buffer-string) "# mine\nalpha\nbeta\ngamma\n")))
          (with-current-buffer buf (set-buffer-modified-p nil))
          (kill-buffer buf))))))

(provide 'harness9-test)
;;; harness9-test.el ends here
