;;; harness9-rows-test.el --- The rows of refused calls in the run view  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded by editors/emacs/test.sh.  The rows of calls the user rejected or a rule or the mode
;; denied, from notifications as the daemon sends them, with `tool_failed's `message' (the
;; user's reason, the rule's explanation) and without it (older daemons).

;;; Code:

(require 'ert)
(require 'harness9)

(defun harness9-rows-test--rows (events)
  "The first line of each tool row of a run fed EVENTS (plists without :runId)."
  (let* ((run (harness9--make-run :prompt "go" :id "r-1"))
         (harness9--runs (list run)))
    (dolist (ev events) (harness9--apply (append (list :runId "r-1" :turn 1) ev)))
    (mapcar #'harness9--tool-text (seq-filter #'harness9--tool-p (harness9--run-blocks run)))))

(defun harness9-rows-test--refused (id tool title decision by &optional message rule)
  "The notifications of call ID of TOOL (TITLE) refused by BY with DECISION.
With MESSAGE, `tool_failed' carries it, as daemons since the field do; RULE names a rule."
  (let ((reason (if (equal by "user") "rejected" "denied")))
    (append (when (equal by "user")
              (list (list :kind "approval_requested" :toolCallId id :tool tool :title title)))
            (list (append (list :kind "approval_resolved" :toolCallId id :tool tool
                                :decision decision :by by)
                          (when rule (list :rule rule)))
                  (append (list :kind "tool_failed" :toolCallId id :tool tool :reason reason
                                :durationMs 812
                                :output (format "Error: the call was %s. Do not retry it." reason))
                          (when message (list :message message)))))))

(ert-deftest harness9-test-refused-rows ()
  "A rejected call's row reads `rejected: <the user's reason>' once, or `rejected' when the
daemon sent none (an older one never does); a denied one names the rule and its explanation.
The output meant for the model is not shown under it."
  (should (equal (harness9-rows-test--rows
                  (append
                   ;; A call a rule or the mode denied is named by its turn's message.
                   '((:kind "assistant_message" :text ""
                            :toolCalls [(:id "c3" :name "write_file" :arguments (:path ".env"))
                                        (:id "c4" :name "write_file" :arguments (:path ".env"))
                                        (:id "c5" :name "bash" :arguments (:command "make"))]))
                   (harness9-rows-test--refused "c1" "bash" "bash: rm -rf build" "reject" "user"
                                                    "not now, run the tests first")
                   (harness9-rows-test--refused "c2" "bash" "bash: rm -rf dist" "reject" "user")
                   (harness9-rows-test--refused "c3" "write_file" "write_file: .env" "deny" "rule"
                                                    "secrets stay out of the repo" "write_file(**/.env)")
                   (harness9-rows-test--refused "c4" "write_file" "write_file: .env" "deny" "rule"
                                                    nil "write_file(**/.env)")
                   (harness9-rows-test--refused "c5" "bash" "bash: make" "deny" "mode"
                                                    "read-only mode runs no commands")
                   (harness9-rows-test--refused "c6" "bash" "bash: ls" "reject" "user" "  \n")))
                 '(("  ✗ bash: rm -rf build  (rejected: not now, run the tests first)")
                   ("  ✗ bash: rm -rf dist  (rejected)")
                   ("  ✗ write_file: .env  (denied by rule write_file(**/.env): secrets stay out of the repo)")
                   ("  ✗ write_file: .env  (denied by rule write_file(**/.env))")
                   ("  ✗ bash: make  (denied by the mode: read-only mode runs no commands)")
                   ("  ✗ bash: ls  (rejected)"))))
  ;; Allowed, then refused (the user's edit a command cannot take): the row says rejected.
  (should (equal (harness9-rows-test--rows
                  '((:kind "approval_requested" :toolCallId "c1" :tool "bash" :title "bash: ls")
                    (:kind "approval_resolved" :toolCallId "c1" :tool "bash" :decision "allow_once"
                           :by "user")
                    (:kind "tool_failed" :toolCallId "c1" :tool "bash" :reason "rejected"
                           :durationMs 3 :output "Error: not a file write."
                           :message "edited, but a command takes no edit")))
                 '(("  ✗ bash: ls  (rejected: edited, but a command takes no edit)"))))
  ;; A call that failed otherwise keeps its output and its time.
  (should (equal (harness9-rows-test--rows
                  '((:kind "tool_failed" :toolCallId "c1" :tool "bash" :arguments (:command "x")
                           :reason "timeout" :durationMs 30000 :output "timed out"
                           :message "ignored here")))
                 '(("  ✗ bash: x  (timeout, 30000 ms)" "    │ timed out")))))

(provide 'harness9-rows-test)
;;; harness9-rows-test.el ends here
