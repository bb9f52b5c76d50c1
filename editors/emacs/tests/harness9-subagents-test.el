;;; harness9-subagents-test.el --- A child agent's rows in the run view  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded after harness9-test.el by editors/emacs/test.sh, against the real daemon and the
;; repository's fake LLM (tests/fakellm, OpenAI wire, as a process: its address on its first
;; line, `script <json>' on its input).  The parent's and its child's requests take the one
;; script in turn, as the parent waits for its task.  The child's question names its agent;
;; its rows are indented under the task's row, which names the agent; the child's text stays
;; out of the parent's answer.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'json)
(require 'harness9)
(require 'harness9-test)

(defconst harness9-subagents-test--repo
  (expand-file-name "../../../" harness9-test--dir)
  "The repository's root, where `python -m tests.fakellm' runs.")

(defun harness9-subagents-test--fake ()
  "Start the fake LLM; return (PROCESS . its base URL)."
  (let* ((default-directory harness9-subagents-test--repo)
         (output "")
         (process (make-process
                   :name "harness9-fakellm" :noquery t :connection-type 'pipe
                   :command (list (or (getenv "H9_PYTHON") "python3") "-m" "tests.fakellm")
                   :filter (lambda (proc text)
                             (process-put proc :output (concat (process-get proc :output) text))))))
    (harness9-test--wait "the fake LLM's address"
                         (lambda () (string-match-p "\n" (or (process-get process :output) ""))))
    (setq output (process-get process :output))
    (cons process (car (split-string output "\n")))))

(defun harness9-subagents-test--script (process turns)
  "Append TURNS (a vector of plists in the replay format) to the script of the fake PROCESS."
  (process-put process :output "")
  (process-send-string process (concat "script " (json-encode turns) "\n"))
  (harness9-test--wait "the fake LLM's ok"
                       (lambda () (string-match-p "\\`ok\n" (process-get process :output)))))

(defun harness9-subagents-test--text ()
  "The *harness9* buffer's text, durations and costs made constant."
  (with-current-buffer (harness9-buffer)
    (thread-last (buffer-string)
      (replace-regexp-in-string "[0-9]+ ms" "N ms")
      (replace-regexp-in-string "\\$[0-9]+\\.[0-9]+" "$N")
      (replace-regexp-in-string "[0-9]+ in / [0-9]+ out tokens" "N in / N out tokens"))))

(defmacro harness9-subagents-test--with-fake (&rest body)
  "Run BODY with the fake LLM (`fake': its process and URL) as the model of a daemon.
In a fresh workspace `ws', the daemon asking before every change; `server' is its
connection, `questions' the prompts of the approval questions, each answered Allow once."
  (declare (indent 0))
  `(let* ((fake (harness9-subagents-test--fake))
          (ws (file-name-as-directory (make-temp-file "harness9-ws" t)))
          (default-directory ws)
          (harness9-initialization-options
           '(:provider "openai" :model "gpt-4o-mini" :approvals (:mode "ask")))
          (process-environment
           (append (list "OPENAI_API_KEY=sk-fake" (concat "OPENAI_BASE_URL=" (cdr fake) "/v1")
                         "ANTHROPIC_API_KEY" "HARNESS9_PROVIDER" "HARNESS9_REPLAY"
                         "HARNESS9_APPROVALS" "HARNESS9_MODEL")
                   process-environment))
          (eglot-server-programs
           (cons (list 'harness9-mode 'harness9-lsp-server (getenv "H9_DAEMON") "serve")
                 eglot-server-programs))
          (harness9--runs nil) (harness9--active nil) (harness9-events nil)
          (questions nil) (server nil) (passed nil))
     (unwind-protect
         (cl-letf (((symbol-function 'completing-read)
                    (lambda (prompt &rest _) (push prompt questions) "Allow once")))
           ,@body
           (setq passed t))
       (unless passed (harness9-test--dump server))
       (when server (ignore-errors (eglot-shutdown server nil 5)))
       (delete-process (car fake))
       (delete-directory ws t))))

(ert-deftest harness9-test-subagent-rows ()
  "A task's child agent: its question names it, its rows sit indented under the task's row
\(which names the agent and what it cost), and its text is not the parent's answer."
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
             (list :text "CHILD-ANSWER: it printed child-ran.")
             (list :text "PARENT-ANSWER: the helper is done.")))
    (setq server (harness9-connection))
    (harness9-test--empty-configuration server)
    (let ((result (harness9-run-and-wait "find the greeting")))
      (should (equal (plist-get result :status) "completed"))
      (should (equal (plist-get result :text) "PARENT-ANSWER: the helper is done.")))
    (should (equal (length questions) 1))
    (should (string-match-p "harness9's general agent asks to run bash: echo child-ran"
                            (car questions)))
    (should (equal (harness9-subagents-test--text)
                   (string-join
                    '("» find the greeting"
                      "── turn 1"
                      "Asking a helper."
                      "  ✓ task (general agent): find the greeting  (N ms, $N)"
                      "    Looking."
                      "      ✓ bash: echo child-ran  (allowed once, N ms)"
                      "        │ child-ran"
                      "    CHILD-ANSWER: it printed child-ran."
                      "── turn 2"
                      "PARENT-ANSWER: the helper is done."
                      "■ completed · 2 turns · 1 tool call · N in / N out tokens · $N")
                    "\n")))))

(provide 'harness9-subagents-test)
;;; harness9-subagents-test.el ends here
