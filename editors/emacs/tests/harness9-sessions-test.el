;;; harness9-sessions-test.el --- Stored sessions shown again and continued  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded after harness9-subagents-test.el by editors/emacs/test.sh, against the real daemon and
;; the repository's fake LLM.  A run whose task's child agent makes a call that succeeds (asked
;; about, allowed once) and one that fails; then `harness9-sessions' shows the stored session as
;; the run buffer showed it live, and `harness9-resume' continues the same session.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'harness9)
(require 'harness9-sessions)
(require 'harness9-test)
(require 'harness9-subagents-test)

(defun harness9-sessions-test--text (buffer)
  "BUFFER's text, durations and costs made constant, as the subagents test makes them."
  (with-current-buffer buffer
    (thread-last (buffer-string)
      (replace-regexp-in-string "[0-9]+ ms" "N ms")
      (replace-regexp-in-string "\\$[0-9]+\\.[0-9]+" "$N")
      (replace-regexp-in-string "[0-9]+ in / [0-9]+ out tokens" "N in / N out tokens"))))

(defun harness9-sessions-test--pick (command)
  "Call COMMAND interactively, picking the first session offered; return (CHOICES . VALUE)."
  (let ((choices nil))
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq choices (all-completions "" collection))
                 (car choices))))
      (let ((value (call-interactively command)))
        (cons choices value)))))

(ert-deftest harness9-test-stored-session ()
  "A stored session reads as its run did live: the prompt, the turns' text, each call's row
\(the approval, the failure and its output) and the task's child rows under it with its cost.
Only the token counts are not kept per run.  Resuming it, the next run continues it."
  (harness9-subagents-test--with-fake
    (harness9-subagents-test--script
     (car fake)
     (vector (list :text "Asking a helper."
                   :tool_calls (vector (list :name "task"
                                             :arguments (list :description "find the greeting"
                                                              :prompt "CHILD: run echo"
                                                              :agent "general"))))
             (list :text "Looking."
                   :tool_calls (vector (list :name "bash"
                                             :arguments (list :command "echo child-ran"))))
             (list :text "And the **notes**."
                   :tool_calls (vector (list :name "read_file"
                                             :arguments (list :path "missing.txt"))))
             (list :text "CHILD-ANSWER: it printed child-ran.")
             (list :text "PARENT-ANSWER: the helper is *done*.")
             (list :text "RESUMED-ANSWER: still here.")))
    (setq server (harness9-connection))
    (harness9-test--empty-configuration server)
    (let* ((first (harness9-run-and-wait "find the greeting"))
           (live (harness9-sessions-test--text (harness9-buffer)))
           (picked (harness9-sessions-test--pick #'harness9-sessions))
           (shown (cdr picked)))
      (should (equal (plist-get first :status) "completed"))
      (should (equal (length (car picked)) 1))
      (should (string-match-p "\\`find the greeting · [0-9]\\{4\\}-[0-9-]+ [0-9:]+ · 2 turns\\'"
                              (caar picked)))
      (should (equal live
                     (string-join
                      '("» find the greeting"
                        "── turn 1"
                        "Asking a helper."
                        "  ✓ task (general agent): find the greeting  (N ms, $N)"
                        "    Looking."
                        "      ✓ bash: echo child-ran  (allowed once, N ms)"
                        "        │ child-ran"
                        "    And the **notes**."
                        "      ✗ read_file: missing.txt  (error, N ms)"
                        "        │ Error: file not found: missing.txt"
                        "    CHILD-ANSWER: it printed child-ran."
                        "── turn 2"
                        "PARENT-ANSWER: the helper is *done*."
                        "■ completed · 2 turns · 1 tool call · N in / N out tokens · $N")
                      "\n")))
      ;; The same rows, marks and all; the footer without the tokens (kept per session only).
      (should (equal (harness9-sessions-test--text shown)
                     (replace-regexp-in-string " · N in / N out tokens" "" live)))
      (should (equal (get-text-property 0 'face (with-current-buffer shown
                                                  (save-excursion
                                                    (goto-char (point-min))
                                                    (search-forward "✗")
                                                    (buffer-substring (1- (point)) (point)))))
                     'error))
      (should (with-current-buffer shown buffer-read-only))
      ;; Resumed in a fresh view: the stored conversation first, then the next run, in the
      ;; same session.
      (setq harness9--runs nil)
      (setf (alist-get server harness9--sessions) nil)
      (should (equal (cdr (harness9-sessions-test--pick #'harness9-resume))
                     (plist-get first :sessionId)))
      (should (equal (harness9-sessions-test--text (harness9-buffer))
                     (harness9-sessions-test--text shown)))
      (let ((next (harness9-run-and-wait "and now?")))
        (should (equal (plist-get next :sessionId) (plist-get first :sessionId)))
        (should (equal (plist-get next :text) "RESUMED-ANSWER: still here.")))
      (should (string-suffix-p
               (string-join '("" "» and now?" "── turn 1" "RESUMED-ANSWER: still here."
                              "■ completed · 1 turn · 0 tool calls · N in / N out tokens · $N")
                            "\n")
               (harness9-sessions-test--text (harness9-buffer))))
      (should (string-prefix-p (concat (harness9-sessions-test--text shown) "\n\n")
                               (harness9-sessions-test--text (harness9-buffer))))
      (kill-buffer shown))))

(ert-deftest harness9-test-stored-rows ()
  "A stored session's plan, a message steered into its run, a refused call (its row says who
refused it and why, not the output meant for the model) and a call kept without its outcome
\(an older daemon's: shown done)."
  (let* ((call (lambda (id name arguments &optional outcome)
                 (append (list :id id :name name :arguments (json-encode arguments) :kind "other")
                         (when outcome (list :outcome outcome)))))
         (session
          (list :sessionId "s-1" :title "tidy up"
                :messages
                (vector
                 '(:role "system" :content "You are harness9.")
                 '(:role "user" :content "tidy up")
                 (list :role "assistant" :content "Planning."
                       :toolCalls
                       (vector (funcall call "c1" "update_plan"
                                        '(:items [(:text "look" :status "done")
                                                  (:text "fix" :status "pending")])
                                        '(:status "completed" :turn 1 :bytes 13
                                                  :truncated :json-false :durationMs 2))))
                 '(:role "user" :content "Plan updated." :toolCallId "c1")
                 '(:role "user" :content "also the docs")
                 (list :role "assistant" :content ""
                       :toolCalls
                       (vector (funcall call "c2" "bash" '(:command "rm -rf build")
                                        '(:status "rejected" :turn 2 :bytes 30 :truncated :json-false
                                                  :durationMs 900 :message "not now"
                                                  :approval (:decision "reject" :by "user")))
                               (funcall call "c3" "read_file" '(:path "a.txt"))))
                 '(:role "user" :content "Error: the call was rejected." :toolCallId "c2" :isError t)
                 '(:role "user" :content "hello" :toolCallId "c3")
                 '(:role "assistant" :content "Done."))
                :runs (vector '(:runId "r-1" :prompt "tidy up" :status "completed" :turns 3
                                       :toolCalls 3 :startedAt "2026-01-01T00:00:00Z"))))
         (harness9--runs (harness9--stored-runs session nil)))
    (should (equal (harness9-view-text)
                   (string-join
                    '("» tidy up"
                      "── turn 1"
                      "Planning."
                      "── plan 1/2 done"
                      "  [x] look"
                      "  [ ] fix"
                      "  ↪ you: also the docs"
                      "── turn 2"
                      "  ✗ bash: rm -rf build  (rejected: not now)"
                      "  ✓ read_file: a.txt  (0 ms)"
                      "    │ hello"
                      "── turn 3"
                      "Done."
                      "■ completed · 3 turns · 3 tool calls")
                    "\n")))))

(provide 'harness9-sessions-test)
;;; harness9-sessions-test.el ends here
