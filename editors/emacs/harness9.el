;;; harness9.el --- Run the harness9 coding agent through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9") (jsonrpc "1.0.14"))
;; Keywords: tools, languages

;;; Commentary:

;; harness9 is a coding-agent daemon that speaks LSP-framed JSON-RPC.  This file starts it
;; through eglot (an `eglot-server-programs' entry for `harness9-mode'), sends `agent/run'
;; with jsonrpc, renders the `agent/progress' notifications live in the *harness9* buffer,
;; and cancels with `agent/cancel'.  Tool calls that need the user's approval are asked
;; by eglot in the minibuffer (`window/showMessageRequest'); C-g there rejects.
;;
;;   M-x harness9-run      prompt for a task and run it (C-u: start a new session)   C-c h r
;;   M-x harness9-steer    tell the running agent something (else: run it)         C-c h s
;;   M-x harness9-queue    a prompt to run once the running one ends                C-c h q
;;   M-x harness9-unqueue  take the newest queued prompt back                       C-c h u
;;   M-x harness9-plan     investigate and write a plan, change nothing             C-c h p
;;   M-x harness9-go       carry out the plan                                       C-c h g
;;   M-x harness9-cancel   cancel the run in progress                               C-c h c
;;   M-x harness9-show     show the *harness9* buffer                               C-c h b
;;   M-x harness9-prompt   write a prompt in a buffer (C-c C-c sends, C-c C-k cancels) C-c h i
;;   M-x harness9-sessions show a stored session as its runs were shown            C-c h l
;;   M-x harness9-resume   continue a stored session                                C-c h R
;;
;; Each edit's diff shows under its line, in faces readable on dark and light themes, and the
;; agent's text is shown as markdown (harness9-markdown.el: headings, emphasis, code blocks,
;; lists, quotes, links as buttons, tables lined up).  A refused call's row says why, once.
;; An edit of a synced buffer leaves it unmodified (it matches the disk), and
;; eglot asks nothing before it: the daemon's approval asked already.
;;
;; After each edit the daemon asks for the problems the project's other eglot servers report
;; for the file (`harness9/diagnostics'); the model reads the new ones.
;;
;; The keys are `harness9-command-map' under `harness9-keymap-prefix' (nil: none).  Buffers of
;; files a run changed on disk (bash's `changedFiles') are reverted when they have no unsaved
;; changes.
;;
;; From Lisp, `harness9-run-and-wait' runs synchronously and returns the result plist.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'project)
(require 'seq)
(require 'subr-x)
(require 'json)
(require 'diff-mode)
(require 'harness9-markdown)

(defgroup harness9 nil
  "The harness9 coding agent."
  :group 'tools)

(defcustom harness9-program '("harness9" "serve")
  "Command line of the daemon, used for the `eglot-server-programs' entry."
  :type '(repeat string))

(defcustom harness9-initialization-options nil
  "Plist sent as `initializationOptions'.
For example (:provider \"openai\" :model \"gpt-4o\"), or with approval rules
\(:approvals (:mode \"ask\" :allow [\"bash(npm test)\"]))."
  :type 'plist)

(defcustom harness9-synced-modes nil
  "Major modes whose buffers in the project eglot syncs with the daemon.
The agent then reads their text as shown, unsaved changes included,
and its edits of them land in the buffer (through `workspace/applyEdit')
and in its undo.  A buffer is managed by one eglot server only: list
modes no other language server handles, e.g. (text-mode markdown-mode)."
  :type '(repeat symbol))

(defcustom harness9-run-params nil
  "Plist of extra `agent/run' params for every run.
For example (:maxTurns 10 :thinking t)."
  :type 'plist)

(defcustom harness9-output-lines 3
  "How many lines of each tool's output are shown under its line."
  :type 'integer)

(defcustom harness9-diff-lines 12
  "How many lines of an edit's diff are shown under its line (nil: all)."
  :type '(choice integer (const :tag "All" nil)))

(defcustom harness9-run-timeout 3600
  "Seconds `harness9-run-and-wait' waits for a run before giving up."
  :type 'number)

(defclass harness9-lsp-server (eglot-lsp-server) ()
  :documentation "An eglot connection to the harness9 daemon.")

(defvar harness9-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'forward-button)
    (define-key map (kbd "<backtab>") #'backward-button)
    map)
  "Keys of the *harness9* buffer: TAB and S-TAB move between links.")

(define-derived-mode harness9-mode special-mode "harness9"
  "Major mode of the *harness9* buffer, which shows agent runs as they happen.
The agent's text is shown as markdown; its links are buttons (RET or a
click opens them, TAB moves to the next).
\\{harness9-mode-map}"
  ;; Long lines of prose wrap between words, under their list item's text.
  (setq-local word-wrap t))

(add-to-list 'eglot-server-programs
             `(harness9-mode . (harness9-lsp-server ,@harness9-program)))

(cl-defmethod eglot-initialization-options ((_server harness9-lsp-server))
  "Send `harness9-initialization-options' (an empty object when nil)."
  (or harness9-initialization-options (make-hash-table)))

(defvar harness9-events nil
  "Every `agent/progress' notification received, newest first, as plists.")

(defvar harness9--runs nil "The runs shown in the *harness9* buffer, oldest first.")
(defvar harness9--active nil "The run in flight, or nil.")
(defvar harness9--orphans nil
  "Notifications of runs not known yet, newest first.
A steer that became the next prompt: its run may start before its reply.")
(defvar harness9--sessions nil "Alist of (SERVER . sessionId of its last run).")

;;;; The run view: notifications fold into run records, which render to text

(cl-defstruct (harness9--run (:constructor harness9--make-run) (:copier nil))
  "One agent run as shown in the *harness9* buffer."
  prompt id session server root blocks turns tools calls
  status error turn-count tool-count usage cost cancelling done queued queue-id plan)

(cl-defstruct (harness9--note (:constructor harness9--make-note) (:copier nil))
  "A line of a run that is neither a turn nor a tool: a message steered into it."
  text)

(cl-defstruct (harness9--plan (:constructor harness9--make-plan) (:copier nil))
  "The agent's plan (its `update_plan' calls), shown where it first appeared."
  items note)

(cl-defstruct (harness9--turn (:constructor harness9--make-turn) (:copier nil))
  number (text "") thinking)

(cl-defstruct (harness9--tool (:constructor harness9--make-tool) (:copier nil))
  name summary (status 'running) reason message ms output approval diff exit
  ;; A task's (a child agent's call): its agent, what it cost, and its child's rows (tools, and
  ;; strings for its text), shown indented under it.
  agent cost children)

(defun harness9--find-run (id)
  "The run with ID, else the oldest waiting run without an id (it then takes ID).
The oldest: runs sent one after another (queued) hear from the daemon in order."
  (or (cl-find id harness9--runs :key #'harness9--run-id :test #'equal)
      (let ((waiting (cl-find-if (lambda (run) (and (null (harness9--run-id run))
                                                    (not (harness9--run-done run))))
                                 harness9--runs)))
        (when waiting
          (setf (harness9--run-id waiting) id)
          waiting))))

(defun harness9--turn-block (run number)
  "RUN's block for turn NUMBER, added on first use."
  (or (alist-get number (harness9--run-turns run))
      (let ((turn (harness9--make-turn :number number)))
        (setf (alist-get number (harness9--run-turns run)) turn)
        (setf (harness9--run-blocks run) (append (harness9--run-blocks run) (list turn)))
        turn)))

(defun harness9--summary (args)
  "A one-line summary of tool arguments ARGS (a plist, or the raw string)."
  (cond ((null args) "")
        ((stringp args) args)
        ((stringp (plist-get args :command)) (plist-get args :command))
        ((stringp (plist-get args :path)) (plist-get args :path))
        ;; A task: what the child agent was asked to do.
        ((stringp (plist-get args :description)) (plist-get args :description))
        (t (json-encode args))))

(defun harness9--task-block (run id)
  "RUN's row of the task call ID, under which its child agent's rows go.
Made when its start was not heard of."
  (or (alist-get id (harness9--run-tools run) nil nil #'equal)
      (harness9--tool-block run (list :toolCallId id :tool "task" :arguments nil
                                      :turn (or (caar (harness9--run-turns run)) 1)))))

(defun harness9--apply-child-text (run ev)
  "Put the child agent's assistant_message EV under its task's row in RUN.
Its text is the child's, never the parent's answer."
  (let ((task (harness9--task-block run (plist-get ev :parentToolCallId)))
        (text (string-trim (or (plist-get ev :text) ""))))
    (unless (string-empty-p text)
      (setf (harness9--tool-children task) (append (harness9--tool-children task) (list text))))
    (harness9--note-calls run ev)))

(defun harness9--tool-block (run ev)
  "RUN's block for the tool call of event EV, added on first use.
A call asked about is first heard of by its approval_requested (with
its arguments since protocol 1.2) and has a tool_started only once
allowed; a refused call never starts.  A call a rule or the mode denied
is first heard of by its approval_resolved, without arguments: those of
its turn's assistant_message (`harness9--run-calls') name it then."
  (let ((id (plist-get ev :toolCallId)))
    (or (alist-get id (harness9--run-tools run) nil nil #'equal)
        (let ((tool (harness9--make-tool
                     :name (plist-get ev :tool)
                     :summary (if (and (not (plist-member ev :arguments)) (plist-get ev :title))
                                  ;; An approval event's title is "tool: summary".
                                  (string-remove-prefix (concat (plist-get ev :tool) ": ")
                                                        (plist-get ev :title))
                                (harness9--summary
                                 (if (plist-member ev :arguments)
                                     (plist-get ev :arguments)
                                   (alist-get id (harness9--run-calls run) nil nil #'equal)))))))
          (setf (alist-get id (harness9--run-tools run) nil nil #'equal) tool)
          (let ((parent (plist-get ev :parentToolCallId)))
            (if (stringp parent)    ; a child agent's call: under its task, its turns its own
                (let ((task (harness9--task-block run parent)))
                  (setf (harness9--tool-children task)
                        (append (harness9--tool-children task) (list tool))))
              (harness9--turn-block run (plist-get ev :turn))
              (setf (harness9--run-blocks run) (append (harness9--run-blocks run) (list tool)))))
          tool))))

(defun harness9--note-calls (run ev)
  "Keep the arguments of the calls the assistant_message EV lists, by id, in RUN."
  (seq-doseq (call (or (plist-get ev :toolCalls) []))
    (setf (alist-get (plist-get call :id) (harness9--run-calls run) nil nil #'equal)
          (plist-get call :arguments))))

(defun harness9--decision-note (ev)
  "How the approval_resolved event EV reads after its tool line."
  (let ((decision (plist-get ev :decision))
        (by (plist-get ev :by)))
    (if (equal by "user")
        (pcase decision
          ("allow_once" "allowed once")
          ("allow_session" "allowed for the session")
          ("reject" "rejected")
          (_ (format "%s" decision)))
      (let ((verb (if (member decision '("deny" "reject")) "denied" "allowed")))
        (pcase by
          ("rule" (format "%s by rule %s" verb (plist-get ev :rule)))
          ("session" (concat verb " for the session"))
          ("mode" (concat verb " by the mode"))
          (_ (format "%s by %s" verb by)))))))

(defun harness9--apply-approval (run ev)
  "Record the approval event EV (requested or resolved) on its tool in RUN."
  (let ((tool (harness9--tool-block run ev)))
    (if (equal (plist-get ev :kind) "approval_requested")
        (setf (harness9--tool-status tool) 'asking)
      (when (eq (harness9--tool-status tool) 'asking)
        (setf (harness9--tool-status tool) 'running))
      (setf (harness9--tool-approval tool) (harness9--decision-note ev)))))

(defun harness9--apply-plan (run ev)
  "Show the plan of the `plan' event EV in RUN: one block, updated in place."
  (let ((plan (or (harness9--run-plan run)
                  (let ((block (harness9--make-plan)))
                    (setf (harness9--run-plan run) block
                          (harness9--run-blocks run) (append (harness9--run-blocks run)
                                                             (list block)))
                    block))))
    (setf (harness9--plan-items plan) (append (plist-get ev :items) nil)
          (harness9--plan-note plan) (plist-get ev :note))))

(defun harness9--plan-text (plan)
  "The lines of PLAN: a heading with the count done, then a checkbox per step."
  (let* ((items (harness9--plan-items plan))
         (done (seq-count (lambda (item) (equal (plist-get item :status) "done")) items)))
    (append (list (format "── plan %d/%d done" done (length items)))
            (mapcar (lambda (item)
                      (format "  %s %s"
                              (pcase (plist-get item :status)
                                ("done" "[x]") ("in_progress" "[>]") (_ "[ ]"))
                              (plist-get item :text)))
                    items)
            (when (stringp (harness9--plan-note plan))
              (list (concat "  " (harness9--plan-note plan)))))))

(defun harness9--apply-finished (run ev)
  "Record the run_finished event EV on RUN."
  (let ((err (plist-get ev :error)))
    (setf (harness9--run-status run) (plist-get ev :status)
          (harness9--run-turn-count run) (plist-get ev :turns)
          (harness9--run-tool-count run) (plist-get ev :toolCalls)
          (harness9--run-usage run) (or (plist-get ev :usage) (harness9--run-usage run)))
    (when err
      (setf (harness9--run-error run)
            (if (stringp err) err (or (plist-get err :message) (plist-get err :kind)))))))

(defun harness9--apply (ev)
  "Fold the agent/progress notification EV into its run; return that run."
  (let ((run (harness9--find-run (plist-get ev :runId)))
        (kind (plist-get ev :kind))
        (turn (plist-get ev :turn)))
    (when (and run (stringp (plist-get ev :parentToolCallId)))
      (let ((task (harness9--task-block run (plist-get ev :parentToolCallId))))
        (setf (harness9--tool-agent task) (or (plist-get ev :agent) (harness9--tool-agent task))))
      ;; A child's text goes under its task; its thinking is not shown.
      (pcase kind
        ("assistant_message" (harness9--apply-child-text run ev) (setq kind nil))
        ((or "thinking" "text_delta") (setq kind nil))))
    (when run
      (pcase kind
        ("run_started" (setf (harness9--run-session run) (plist-get ev :sessionId)
                             (harness9--run-root run) (plist-get ev :workspaceRoot)))
        ("turn_started" (harness9--turn-block run turn))
        ("thinking" (setf (harness9--turn-thinking (harness9--turn-block run turn)) (plist-get ev :text)))
        ("text_delta" (let ((block (harness9--turn-block run turn)))
                        (setf (harness9--turn-text block)
                              (concat (harness9--turn-text block) (plist-get ev :text)))))
        ("assistant_message" (setf (harness9--turn-text (harness9--turn-block run turn))
                                   (or (plist-get ev :text) ""))
                             (harness9--note-calls run ev))
        ("tool_started" (harness9--tool-block run ev))
        ((or "approval_requested" "approval_resolved") (harness9--apply-approval run ev))
        ((or "tool_completed" "tool_failed")
         (let ((tool (harness9--tool-block run ev)))
           (setf (harness9--tool-exit tool) (harness9--command-failure ev)
                 ;; A command that exited non-zero completed for the model, failed for the user.
                 (harness9--tool-status tool) (if (and (equal kind "tool_completed")
                                                       (null (harness9--tool-exit tool)))
                                                  'ok 'failed)
                 (harness9--tool-reason tool) (plist-get ev :reason)
                 ;; Why a call was refused (since the daemon sends it): one line.
                 (harness9--tool-message tool) (let ((message (plist-get ev :message)))
                                                 (and (stringp message) message))
                 (harness9--tool-ms tool) (plist-get ev :durationMs)
                 (harness9--tool-output tool) (plist-get ev :output)
                 (harness9--tool-diff tool) (plist-get ev :diff)
                 (harness9--tool-agent tool) (or (plist-get ev :agent) (harness9--tool-agent tool))
                 (harness9--tool-cost tool) (plist-get ev :costUsd))))
        ("steered" (setf (harness9--run-blocks run)
                         (append (harness9--run-blocks run)
                                 (list (harness9--make-note
                                        :text (concat "  ↪ you: " (plist-get ev :text)))))))
        ("plan" (harness9--apply-plan run ev))
        ("queued" (setf (harness9--run-queued run) (or (plist-get ev :position) t)
                        (harness9--run-queue-id run) (plist-get ev :queueId)
                        (harness9--run-session run) (plist-get ev :sessionId)))
        ("dequeued" (setf (harness9--run-queued run) nil))
        ("usage" (setf (harness9--run-usage run)
                       (list :inputTokens (plist-get ev :totalInputTokens)
                             :outputTokens (plist-get ev :totalOutputTokens))
                       ;; What the run has cost so far, when the model's price is known.
                       (harness9--run-cost run) (or (plist-get ev :costUsd)
                                                    (harness9--run-cost run))))
        ("run_finished" (harness9--apply-finished run ev))))
    (unless run (push ev harness9--orphans))
    run))

(defun harness9--adopt (run)
  "Append RUN (which has its id) and fold in its notifications that came first."
  (setq harness9--runs (append harness9--runs (list run)))
  (let ((mine (seq-filter (lambda (ev) (equal (plist-get ev :runId) (harness9--run-id run)))
                          harness9--orphans)))
    (setq harness9--orphans (seq-difference harness9--orphans mine #'eq))
    (dolist (ev (reverse mine))
      (harness9--apply ev)
      (harness9--track-active run ev))))

(defun harness9--apply-reply (run error result)
  "Record the agent/run reply (ERROR or RESULT plist) on RUN."
  (setf (harness9--run-done run) t)
  (cond (result
         (setf (harness9--run-session run) (plist-get result :sessionId)
               (harness9--run-status run) (or (harness9--run-status run) (plist-get result :status))
               (harness9--run-turn-count run) (plist-get result :turns)
               (harness9--run-tool-count run) (plist-get result :toolCalls)
               (harness9--run-usage run) (or (plist-get result :usage) (harness9--run-usage run))))
        ((and error (not (eql (plist-get error :code) -32800)) (null (harness9--run-status run)))
         (let ((kind (plist-get (plist-get error :data) :kind)))
           (setf (harness9--run-status run) "error"
                 (harness9--run-error run)
                 (if kind (format "%s (%s)" (plist-get error :message) kind)
                   (plist-get error :message)))))))

(defun harness9--command-failure (ev)
  "How the command of the `tool_completed' EV failed, as its row says it.
\"exit 254\", or \"killed (SIGKILL)\"; nil when it exited 0 or ran none.
From its `exitCode' or `signal', never from its text."
  (let ((code (plist-get ev :exitCode))
        (signal (plist-get ev :signal)))
    (cond ((and (integerp code) (/= code 0)) (format "exit %d" code))
          ((stringp signal) (format "killed (%s)" signal)))))

(defun harness9--refusal (tool)
  "How TOOL's row says it was refused, or nil when it was not.
\"rejected: not now\", \"denied by rule bash(rm *): …\": who refused it (its
approval note, else its reason) and, when the daemon sent one, why.  Once:
the reason `rejected' or `denied' says again what the note says."
  (let ((reason (harness9--tool-reason tool))
        (approval (harness9--tool-approval tool))
        (message (harness9--tool-message tool)))
    (when (member reason '("rejected" "denied"))
      (let ((who (if (and approval (string-match-p "\\`\\(rejected\\|denied\\)" approval))
                     approval
                   reason)))
        (if (and message (not (string-blank-p message)))
            (concat who ": " (string-trim (replace-regexp-in-string "[\n\r]+" " " message)))
          who)))))

(defun harness9--tool-text (tool)
  "The lines of TOOL: status, name, summary, then the head of its output."
  (let* ((status (harness9--tool-status tool))
         (approval (harness9--tool-approval tool))
         (icon (pcase status
                 ('running "…") ('asking "?") ('ok (propertize "✓" 'face 'success))
                 (_ (propertize "✗" 'face 'error))))
         (name (if (equal (harness9--tool-name tool) "task")
                   (format "task (%s agent)" (or (harness9--tool-agent tool) "explore"))
                 (harness9--tool-name tool)))
         (head (format "  %s %s: %s" icon name
                       (replace-regexp-in-string "\n" " ⏎ " (harness9--tool-summary tool)))))
    (pcase status
      ('asking (list (concat head "  (waiting for approval)")))
      ('running (list (if approval (format "%s  (%s)" head approval) head)))
      (_
       (let* ((ms (round (or (harness9--tool-ms tool) 0)))
              (refused (harness9--refusal tool))
              ;; A refused call's output is the daemon's word to the model; its row says why.
              ;; A task's result is its child's last message, already shown under it.
              (text (if (or refused (and (eq status 'ok)
                                         (seq-some #'stringp (harness9--tool-children tool))))
                        ""
                      (replace-regexp-in-string "\n+\\'" "" (or (harness9--tool-output tool) ""))))
              (out (unless (string-empty-p text) (split-string text "\n")))
              (shown (seq-take out harness9-output-lines)))
         (append (list (format "%s  (%s)" head
                               ;; A refused call never ran: no time to tell, and the
                               ;; user's reason, commas and all, ends the row.
                               (or refused
                                   (string-join (delq nil (list approval
                                                                (harness9--tool-reason tool)
                                                                (harness9--tool-exit tool)
                                                                (format "%d ms" ms)
                                                                (when (numberp (harness9--tool-cost tool))
                                                                  (harness9--dollars
                                                                   (harness9--tool-cost tool)))))
                                                ", "))))
                 (harness9--diff-text (harness9--tool-diff tool))
                 (mapcar (lambda (line) (concat "    │ " line)) shown)
                 (when (and (> (length out) harness9-output-lines) (> harness9-output-lines 0))
                   (list (format "    │ … %d more lines" (- (length out) harness9-output-lines))))))))))

;;;; Diffs and markdown in the run view

(defface harness9-diff-added
  '((((class color) (min-colors 88) (background dark)) :foreground "#c8f2c8" :background "#1f4a1f")
    (((class color) (min-colors 88) (background light)) :foreground "#0b3a0b" :background "#d6f5d6")
    (((class color)) :foreground "green")
    (t :inherit diff-added))
  "An added line of an edit's diff in the run view.
It sets both colours, chosen for the background: the theme's own diff faces
may leave the text's colour to the default face, unreadable on theirs."
  :group 'harness9)

(defface harness9-diff-removed
  '((((class color) (min-colors 88) (background dark)) :foreground "#ffd6d6" :background "#5a2424")
    (((class color) (min-colors 88) (background light)) :foreground "#5e0b0b" :background "#f9dddd")
    (((class color)) :foreground "red")
    (t :inherit diff-removed))
  "A removed line of an edit's diff in the run view (both colours set, see
`harness9-diff-added')."
  :group 'harness9)

(defface harness9-diff-hunk-header
  '((((class color) (min-colors 88) (background dark)) :foreground "#cfe0ff" :background "#263650")
    (((class color) (min-colors 88) (background light)) :foreground "#1b3263" :background "#e0e9f7")
    (((class color)) :foreground "cyan")
    (t :inherit diff-hunk-header))
  "The `@@ … @@' line of an edit's diff in the run view (both colours set, see
`harness9-diff-added').  `diff-hunk-header' is grey45 behind light text on a
dark background: too little contrast to read."
  :group 'harness9)

(defface harness9-diff-context '((t nil))
  "An unchanged line of an edit's diff in the run view: the default face.
`diff-context' dims it, too much on some themes (leuven's #888 on white)."
  :group 'harness9)

(defun harness9--diff-face (line)
  "The face of the diff LINE in the run view."
  (cond ((string-prefix-p "@@" line) 'harness9-diff-hunk-header)
        ((string-prefix-p "+" line) 'harness9-diff-added)
        ((string-prefix-p "-" line) 'harness9-diff-removed)
        (t 'harness9-diff-context)))

(defun harness9--diff-text (diff)
  "The lines shown for the unified DIFF under its edit's line, coloured.
The file header is left out (the edit's line names the file), and lines
past `harness9-diff-lines' are counted, not shown."
  (when (and (stringp diff) (not (string-empty-p diff)))
    (let* ((lines (seq-remove (lambda (line) (string-match-p "\\`\\(---\\|\\+\\+\\+\\) " line))
                              (split-string (string-trim-right diff "\n+") "\n")))
           (shown (if harness9-diff-lines (seq-take lines harness9-diff-lines) lines)))
      (append (mapcar (lambda (line)
                        (concat "    ┆ " (propertize line 'face (harness9--diff-face line))))
                      shown)
              (when (> (length lines) (length shown))
                (list (concat "    ┆ " (propertize (format "… %d more lines"
                                                         (- (length lines) (length shown)))
                                                 'face 'shadow))))))))

(defun harness9--plural (n noun)
  "\"N NOUN\" with NOUN in the plural unless N is 1; nil when N is nil."
  (when n (format "%d %s%s" n noun (if (eql n 1) "" "s"))))

(defun harness9--footer (run)
  "RUN's last line: its status and counts, or nil while it runs."
  (let ((status (harness9--run-status run))
        (usage (harness9--run-usage run)))
    (cond ((and (null status) (harness9--run-queued run))
           (if (numberp (harness9--run-queued run))
               (format "⏵ queued (%d)" (harness9--run-queued run))
             "⏵ queued"))
          ((null status) (when (harness9--run-cancelling run) "■ cancelling…"))
          (t (string-join
              (delq nil (list (concat "■ " status
                                      (when (harness9--run-error run)
                                        (concat ": " (harness9--run-error run))))
                              (harness9--plural (harness9--run-turn-count run) "turn")
                              (harness9--plural (harness9--run-tool-count run) "tool call")
                              (when (plist-get usage :inputTokens)
                                (format "%d in / %d out tokens" (plist-get usage :inputTokens)
                                        (or (plist-get usage :outputTokens) 0)))
                              (when (numberp (harness9--run-cost run))
                                (harness9--dollars (harness9--run-cost run)))))
              " · ")))))

(defun harness9--dollars (amount)
  "AMOUNT of US dollars as a run's line shows it.
$0.0123 below a dollar, $12.50 from a dollar up."
  (format (if (< amount 1) "$%.4f" "$%.2f") amount))

(defun harness9--run-text (run)
  "The lines of RUN: prompt, turns with their text and tools, footer."
  (let ((lines (cl-loop for line in (split-string (harness9--run-prompt run) "\n")
                        for first = t then nil
                        collect (concat (if first "» " "  ") line))))
    (dolist (block (harness9--run-blocks run))
      (setq lines
            (append lines
                    (cond
                     ((and (harness9--tool-p block)
                           (equal (harness9--tool-name block) "update_plan")
                           (eq (harness9--tool-status block) 'ok))
                      nil)  ; the plan block shows what it did
                     ((harness9--tool-p block) (append (harness9--tool-text block)
                                                       (harness9--children-text block)))
                     ((harness9--note-p block) (list (harness9--note-text block)))
                     ((harness9--plan-p block) (harness9--plan-text block))
                     (t
                      (append (list (format "── turn %d" (harness9--turn-number block)))
                              (when (harness9--turn-thinking block)
                                (mapcar (lambda (l) (concat "  ~ " l))
                                        (split-string (harness9--turn-thinking block) "\n")))
                              (unless (string-empty-p (harness9--turn-text block))
                                (harness9--markdown-lines (harness9--turn-text block)))))))))
    (append lines (delq nil (list (harness9--footer run))))))

(defun harness9--children-text (task)
  "The lines of TASK's child agent, indented under its row: its calls and its text."
  (mapcan (lambda (child)
            (mapcar (lambda (line) (concat "    " line))
                    (if (stringp child)
                        (split-string child "\n")
                      (append (harness9--tool-text child) (harness9--children-text child)))))
          (harness9--tool-children task)))

(defun harness9-view-text ()
  "The text of the *harness9* buffer: every run, separated by blank lines."
  (mapconcat (lambda (run) (string-join (harness9--run-text run) "\n")) harness9--runs "\n\n"))

;;;; Connection

(defun harness9--root ()
  "The workspace root: the current project's root, else `default-directory'."
  (let ((project (project-current)))
    (file-name-as-directory (expand-file-name (if project (project-root project) default-directory)))))

(defun harness9--contact ()
  "The (CLASS . CONTACT) for the daemon, read from `eglot-server-programs'."
  (let* ((entry (cdr (assq 'harness9-mode eglot-server-programs)))
         (entry (if (functionp entry) (funcall entry) entry)))
    (if (and (symbolp (car entry)) (not (keywordp (car entry))))
        entry
      (cons 'harness9-lsp-server entry))))

(defun harness9-buffer ()
  "The *harness9* buffer, created in `harness9-mode' on first use."
  (or (get-buffer "*harness9*")
      (with-current-buffer (get-buffer-create "*harness9*")
        (harness9-mode)
        (current-buffer))))

(defun harness9-connection (&optional root)
  "A live eglot connection to the daemon for ROOT, started if needed."
  (let* ((root (or root (harness9--root)))
         (project (or (project-current nil root) (cons 'transient root))))
    (or (cl-find-if (lambda (s) (and (cl-typep s 'harness9-lsp-server) (jsonrpc-running-p s)))
                    (gethash project eglot--servers-by-project))
        (with-current-buffer (harness9-buffer)
          (setq default-directory root)
          (let ((eglot-sync-connect t)
                (contact (harness9--contact)))
            (eglot (cons 'harness9-mode harness9-synced-modes)
                   project (car contact) (cdr contact) "harness9"))))))

;;;; Notifications

(cl-defmethod eglot-handle-notification
  ((_server harness9-lsp-server) (_method (eql agent/progress)) &rest params)
  "Fold an agent/progress notification (PARAMS) into the run view."
  (push params harness9-events)
  (let ((run (harness9--apply params)))
    (when run (harness9--track-active run params))
    (when (and run (equal (plist-get params :kind) "tool_completed"))
      (harness9--refresh-files (harness9--run-root run) (harness9--changed-paths params))
      (harness9--settle-edited (harness9--run-root run) params))
    (harness9--render)))

(defun harness9--track-active (run ev)
  "Keep `harness9--active' on the run in flight, given RUN's event EV.
A queued run is in flight from its run_started on."
  (pcase (plist-get ev :kind)
    ("run_started" (unless (harness9--run-status run) (setq harness9--active run)))
    ("run_finished" (when (eq run harness9--active) (setq harness9--active nil)))))

;;;; Buffers of files the agent changed on disk

(defun harness9--changed-paths (ev)
  "The workspace-relative paths the finished tool EV changed on disk.
A bash call's `changedFiles' (deleted ones left out), or the path of a file
tool that wrote to disk (`via' \"disk\"; through the editor the buffer has it)."
  (let ((files (plist-get ev :changedFiles)))
    (cond ((and files (sequencep files))
           (delq nil (mapcar (lambda (file)
                               (unless (equal (plist-get file :status) "deleted")
                                 (plist-get file :path)))
                             files)))
          ((and (equal (plist-get ev :via) "disk") (stringp (plist-get ev :path)))
           (list (plist-get ev :path))))))

(defun harness9--refresh-files (root paths)
  "Revert the unmodified buffers visiting PATHS (relative to ROOT).
A buffer with unsaved changes is left as it is; Emacs warns when it is saved."
  (when root
    (dolist (path paths)
      (let ((buffer (find-buffer-visiting (expand-file-name path root))))
        (when (and buffer (not (buffer-modified-p buffer)))
          (with-current-buffer buffer
            (revert-buffer t t t)))))))

(defun harness9--render ()
  "Redraw the *harness9* buffer from the runs, keeping followers at the end."
  (with-current-buffer (harness9-buffer)
    (let ((inhibit-read-only t)
          (at-end (eobp))
          (windows (get-buffer-window-list (current-buffer) nil t)))
      (let ((followers (cl-remove-if-not (lambda (w) (= (window-point w) (point-max))) windows)))
        (erase-buffer)
        (insert (harness9-view-text))
        (when at-end (goto-char (point-max)))
        (dolist (w followers) (set-window-point w (point-max)))))))

;;;; Buffers the agent edited through the editor

(defun harness9--same-as-disk-p (buffer file)
  "Whether BUFFER's whole text is FILE's text on disk."
  (let ((text (with-current-buffer buffer
                (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))))
    (with-temp-buffer
      (insert-file-contents file)
      (string= text (buffer-string)))))

(defun harness9--settle-edited (root ev)
  "Mark the buffer the finished tool EV edited through the editor as saved.
The daemon applies such an edit to the buffer (`workspace/applyEdit') and
then writes the same text to disk.  The buffer then matches its file: left
modified, its undo would record the step back as the saved state, mark the
buffer unmodified while the disk keeps the edit, and Emacs would quit
without asking.  A buffer changed since (it differs from the disk) is left.
ROOT is the run's workspace root, which EV's path is relative to."
  (let* ((path (plist-get ev :path))
         (file (and root (stringp path) (equal (plist-get ev :via) "editor")
                    (expand-file-name path root)))
         (buffer (and file (find-buffer-visiting file))))
    (when (and buffer (buffer-modified-p buffer) (file-exists-p file)
               (harness9--same-as-disk-p buffer file))
      (with-current-buffer buffer
        (set-visited-file-modtime)
        (set-buffer-modified-p nil)))))

;; eglot asks before applying a server's `workspace/applyEdit' (`eglot-confirm-server-edits',
;; named `eglot-confirm-server-initiated-edits' before eglot 1.16).  The daemon sends one only
;; for an edit its approval allowed, so the second question is dropped for this server alone.
(defvar eglot-confirm-server-edits)

(cl-defmethod eglot-handle-request :around
  ((_server harness9-lsp-server) (_method (eql workspace/applyEdit)) &rest _)
  "Apply the daemon's edit unasked; other servers' edits still ask."
  (with-suppressed-warnings ((obsolete eglot-confirm-server-initiated-edits))
    (let ((eglot-confirm-server-initiated-edits nil)
          (eglot-confirm-server-edits nil))
      (cl-call-next-method))))

;;;; Approvals

;; jsonrpc answers a handler's error, not a quit: without this method, a C-g at
;; the daemon's approval question would leave it unanswered and its call waiting.
(cl-defmethod eglot-handle-request
  ((_server harness9-lsp-server) (_method (eql window/showMessageRequest)) &rest _)
  "Ask as eglot does, but answer null (a rejection) to a quit."
  (condition-case nil
      (cl-call-next-method)
    (quit nil)))

;;;; What the editor knows: the other language servers' problems

;; The daemon asks `harness9/diagnostics' around each edit, for a file or the whole workspace.
;; The answer is what the project's other eglot servers (ruff, pyright, …) last published for
;; it, as they sent it.  A buffer whose file the daemon changed on disk is reverted first (when it
;; has no unsaved changes), so its server sees the edit; then the answer waits, up to the
;; request's timeoutMs, for that server's next problems.

(defconst harness9--problems-quiet 0.15
  "Seconds without new problems after which a file's problems count as settled.")

(defvar harness9--published (make-hash-table :test #'equal)
  "The problems other language servers published, by the file's true name.
Each value is (URI TIME . ALIST): the URI as sent, when the last came,
and (SERVER . DIAGNOSTICS) for each server.")

(cl-defmethod eglot-client-capabilities ((_server harness9-lsp-server))
  "Eglot's capabilities plus `experimental.harness9.diagnostics'."
  (let ((capabilities (cl-call-next-method)))
    (plist-put capabilities :experimental (list :harness9 (list :diagnostics t)))))

(cl-defmethod eglot-handle-notification :after
  (server (_method (eql textDocument/publishDiagnostics)) &key uri diagnostics &allow-other-keys)
  "Note the DIAGNOSTICS SERVER published for URI (unless it is harness9)."
  (unless (or (cl-typep server 'harness9-lsp-server) (not (stringp uri)))
    (let* ((key (file-truename (eglot--uri-to-path uri)))
           (entry (or (gethash key harness9--published) (list uri 0)))
           (alist (cddr entry)))
      (setf (alist-get server alist) diagnostics)
      (puthash key (cl-list* uri (float-time) alist) harness9--published))))

(defun harness9--problems-of (key)
  "The problems published for the file whose true name is KEY, as one vector."
  (apply #'vconcat (mapcar #'cdr (cddr (gethash key harness9--published)))))

(defun harness9--problem-items (root)
  "Every file under ROOT with problems, as a vector of (:uri :diagnostics)."
  (let ((top (file-name-as-directory (file-truename root)))
        (items nil))
    (maphash (lambda (key entry)
               (let ((problems (harness9--problems-of key)))
                 (when (and (string-prefix-p top key) (> (length problems) 0))
                   (push (list :uri (car entry) :diagnostics problems) items))))
             harness9--published)
    (vconcat (sort items (lambda (a b) (string< (plist-get a :uri) (plist-get b :uri)))))))

(defun harness9--catch-up (buffer)
  "Revert BUFFER if its file changed on disk and it has no unsaved changes.
Return t when it was reverted."
  (when (and buffer (not (buffer-modified-p buffer))
             (not (verify-visited-file-modtime buffer)))
    (with-current-buffer buffer
      (revert-buffer t t t))
    t))

(defun harness9--await-problems (key since timeout)
  "Wait up to TIMEOUT seconds from SINCE for new problems of KEY.
Return once they came and stayed the same for `harness9--problems-quiet'."
  (let ((deadline (+ since timeout)))
    (while (and (< (float-time) deadline)
                (let ((at (cadr (gethash key harness9--published))))
                  (not (and at (> at since) (>= (- (float-time) at) harness9--problems-quiet)))))
      (accept-process-output nil 0.02))))

(cl-defmethod eglot-handle-request
  ((_server harness9-lsp-server) (_method (eql harness9/diagnostics))
   &key uri version timeoutMs &allow-other-keys)
  "Answer with the problems the other language servers published for URI.
For the workspace folder, every file's.  With VERSION, or a file changed
on disk, wait up to TIMEOUTMS for its server to report the new text's."
  (let ((path (and (stringp uri) (eglot--uri-to-path uri))))
    (cond
     ((null path) (list :diagnostics []))
     ((file-directory-p path) (list :items (harness9--problem-items path)))
     (t
      (let* ((key (file-truename path))
             (since (float-time))
             (buffer (find-buffer-visiting path))
             (reverted (harness9--catch-up buffer))
             ;; Only another server managing the buffer will report its problems.
             (checker (and buffer (with-current-buffer buffer (eglot-current-server)))))
        (when (and (numberp timeoutMs) (> timeoutMs 0) (or reverted version) checker
                   (not (cl-typep checker 'harness9-lsp-server)))
          (harness9--await-problems key since (/ timeoutMs 1000.0)))
        (list :diagnostics (harness9--problems-of key)))))))

;;;; Commands

(defconst harness9--plan-prompt "(carry out the plan)"
  "How a run of `harness9-go' without a prompt shows in the buffer.")

(defun harness9--params (run server new-session &optional extra)
  "The agent/run params for RUN on SERVER; continue the session unless NEW-SESSION.
EXTRA is a plist of params for this run only (:plan, :executePlan)."
  (let* ((prompt (harness9--run-prompt run))
         (params (append (unless (equal prompt harness9--plan-prompt) (list :prompt prompt))
                         extra harness9-run-params))
         (session (alist-get server harness9--sessions)))
    (if (and session (not new-session)) (append params (list :sessionId session)) params)))

(defun harness9--blank-p (prompt)
  "Whether PROMPT has nothing to say."
  (string-match-p "\\`[[:space:]]*\\'" (or prompt "")))

(defun harness9--start (prompt new-session &optional extra)
  "Start a run of PROMPT: its view entry, its connection and its params.
EXTRA is a plist of params for this run only."
  (when (harness9--blank-p prompt)
    (user-error "harness9: the prompt is empty"))
  (when harness9--active
    (user-error "harness9: a run is in progress (harness9-steer or harness9-queue adds to it)"))
  (let* ((server (harness9-connection))
         (run (harness9--make-run :prompt prompt :server server)))
    (setq harness9--runs (append harness9--runs (list run))
          harness9--active run)
    (display-buffer (harness9-buffer))
    (harness9--render)
    (cons run (harness9--params run server new-session extra))))

(defun harness9--finish (run error result)
  "Record the agent/run reply (ERROR or RESULT plist) on RUN."
  (harness9--apply-reply run error result)
  (let ((session (or (plist-get result :sessionId) (harness9--run-session run))))
    (when session
      (setf (alist-get (harness9--run-server run) harness9--sessions) session)))
  (when (eq run harness9--active) (setq harness9--active nil))
  (harness9--render))

;;;###autoload
(defun harness9-run (prompt &optional new-session)
  "Run the agent on PROMPT in the current project, showing it in *harness9*.
With a prefix argument (NEW-SESSION), start a new conversation."
  (interactive (list (read-string "harness9: ") current-prefix-arg))
  (harness9--run-async prompt new-session nil))

(defun harness9--run-async (prompt new-session extra)
  "Start a run of PROMPT with EXTRA params; return it.
NEW-SESSION as in `harness9-run'."
  (pcase-let ((`(,run . ,params) (harness9--start prompt new-session extra)))
    (harness9--send run params)
    run))

(defun harness9--send (run params)
  "Send RUN's `agent/run' with PARAMS; its reply is recorded on RUN."
  (jsonrpc-async-request
   (harness9--run-server run) :agent/run params
   :success-fn (lambda (result) (harness9--finish run nil result))
   :error-fn (lambda (error) (harness9--finish run error nil))
   :timeout nil))

(defun harness9--running ()
  "The run in flight once it has its id (waiting a little for it), else nil."
  (let ((run harness9--active))
    (when (and run (harness9--wait-for-run-id run 10) (not (harness9--run-status run)))
      run)))

;;;###autoload
(defun harness9-steer (prompt)
  "Tell the running agent PROMPT: it reads it at its next step (`agent/steer').
The run buffer shows it where the run took it in.  When nothing runs, PROMPT
runs as with `harness9-run'.  Returns the run PROMPT went to."
  (interactive (list (read-string (if harness9--active "harness9 steer: " "harness9: "))))
  (when (harness9--blank-p prompt)
    (user-error "harness9: the prompt is empty"))
  (let ((run (harness9--running)))
    (if (not run)
        (harness9-run prompt)
      (jsonrpc-async-request
       (harness9--run-server run) :agent/steer
       (list :runId (harness9--run-id run) :prompt prompt)
       :success-fn (lambda (reply) (harness9--steered run prompt reply))
       :error-fn (lambda (error)
                   (message "harness9: not steered: %s" (plist-get error :message)))
       :timeout nil)
      run)))

(defun harness9--steered (run prompt reply)
  "The `agent/steer' REPLY for PROMPT sent to RUN.
When the run ended before it could take PROMPT in, PROMPT runs next on its
own: it gets its own entry in the buffer."
  (when (equal (plist-get reply :delivered) "next")
    (message "harness9: the run ended first; your message runs next")
    (let ((next (harness9--make-run :prompt prompt :server (harness9--run-server run)
                                    :id (plist-get reply :runId) :queued t)))
      (harness9--adopt next)
      (harness9--render))))

;;;###autoload
(defun harness9-queue (prompt)
  "Run PROMPT once the running run has ended, in the same session.
The daemon keeps the queue; the buffer shows the prompt as queued until it
starts.  When nothing runs, PROMPT runs at once.  Returns its run."
  (interactive (list (read-string "harness9 queue: ")))
  (when (harness9--blank-p prompt)
    (user-error "harness9: the prompt is empty"))
  (let ((running (harness9--running)))
    (if (not running)
        (harness9-run prompt)
      (let* ((server (harness9--run-server running))
             (run (harness9--make-run :prompt prompt :server server :queued t)))
        (setq harness9--runs (append harness9--runs (list run)))
        (harness9--render)
        (harness9--send run (append (list :prompt prompt) harness9-run-params
                                    (list :sessionId (harness9--run-session running))))
        run))))

;;;###autoload
(defun harness9-unqueue ()
  "Take back the newest prompt still waiting in the queue; return whether it was."
  (interactive)
  (let ((run (cl-find-if (lambda (run) (and (harness9--run-queue-id run)
                                            (harness9--run-queued run)
                                            (not (harness9--run-status run))))
                         (reverse harness9--runs))))
    (unless run (user-error "harness9: nothing is queued"))
    (let ((reply (jsonrpc-request (harness9--run-server run) :agent/unqueue
                                  (list :sessionId (harness9--run-session run)
                                        :queueId (harness9--run-queue-id run)))))
      (eq (plist-get reply :removed) t))))

;;;###autoload
(defun harness9-plan (prompt)
  "Have the agent investigate PROMPT and write a plan, changing nothing.
The run's approval mode is `plan': read tools and `update_plan' only.  The
plan shows in the buffer as a checklist; `harness9-go' carries it out."
  (interactive (list (read-string "harness9 plan: ")))
  (harness9--run-async prompt nil '(:plan t)))

;;;###autoload
(defun harness9-go (&optional prompt)
  "Carry out the session's plan, with PROMPT as more instructions if given."
  (interactive (list (read-string "harness9 go (RET: carry out the plan): ")))
  (harness9--run-async (if (harness9--blank-p prompt) harness9--plan-prompt prompt)
                       nil '(:executePlan t)))

(defun harness9-run-and-wait (prompt &optional new-session)
  "Run the agent on PROMPT and wait for it; return the `agent/run' result plist.
Signals `jsonrpc-error' when the run fails or is cancelled.
NEW-SESSION as in `harness9-run'."
  (pcase-let ((`(,run . ,params) (harness9--start prompt new-session)))
    (condition-case err
        (let ((result (jsonrpc-request (harness9--run-server run) :agent/run params
                                       :timeout harness9-run-timeout)))
          (harness9--finish run nil result)
          result)
      (jsonrpc-error
       (harness9--finish run (list :code (alist-get 'jsonrpc-error-code (cdr err))
                                   :message (alist-get 'jsonrpc-error-message (cdr err))
                                   :data (alist-get 'jsonrpc-error-data (cdr err)))
                         nil)
       (signal (car err) (cdr err)))
      (quit
       ;; C-g while waiting: stop the run too, rather than leave it going unseen.
       (when (eq run harness9--active) (ignore-errors (harness9-cancel)))
       (setf (harness9--run-status run) (or (harness9--run-status run) "cancelled"))
       (harness9--finish run nil nil)
       (signal (car err) (cdr err))))))

(defun harness9--wait-for-run-id (run seconds)
  "Wait up to SECONDS for RUN's id (it comes with its first notification)."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (harness9--run-id run)) (not (harness9--run-done run))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (harness9--run-id run)))

;;;###autoload
(defun harness9-cancel ()
  "Cancel the run in progress with `agent/cancel'; return its `cancelled' flag.
The daemon sends the run's last notifications before it answers, so the
*harness9* buffer shows the cancelled run when this returns."
  (interactive)
  (let ((run harness9--active))
    (unless run (user-error "harness9: no run in progress"))
    (unless (harness9--wait-for-run-id run 10)
      (user-error "harness9: the run has not started yet"))
    (setf (harness9--run-cancelling run) t)
    (harness9--render)
    (let ((reply (jsonrpc-request (harness9--run-server run) :agent/cancel
                                  (list :runId (harness9--run-id run)))))
      (eq (plist-get reply :cancelled) t))))

;;;###autoload
(defun harness9-show ()
  "Show the *harness9* buffer."
  (interactive)
  (display-buffer (harness9-buffer)))

;;;; The prompt buffer: a prompt of several lines, written in a buffer

(defvar harness9-prompt-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'harness9-prompt-send)
    (define-key map (kbd "C-c C-k") #'harness9-prompt-cancel)
    map)
  "Keys of the *harness9 prompt* buffer.")

(define-derived-mode harness9-prompt-mode text-mode "harness9 prompt"
  "Major mode of the *harness9 prompt* buffer, where a prompt is written.
\\<harness9-prompt-mode-map>\\[harness9-prompt-send] sends it,
\\[harness9-prompt-cancel] throws it away.")

(defvar-local harness9--prompt-command nil
  "The command the prompt buffer's text is sent to.")

;;;###autoload
(defun harness9-prompt (&optional command)
  "Write a prompt in the *harness9 prompt* buffer, then send it to COMMAND.
COMMAND is `harness9-steer' unless given: the prompt runs, or goes into the
run in progress, in the project of the buffer this is called from.
\\<harness9-prompt-mode-map>\\[harness9-prompt-send] sends it,
\\[harness9-prompt-cancel] cancels.  Returns the prompt buffer."
  (interactive)
  (let ((directory default-directory)
        (buffer (get-buffer-create "*harness9 prompt*")))
    (with-current-buffer buffer
      (unless (derived-mode-p 'harness9-prompt-mode) (harness9-prompt-mode))
      (setq default-directory directory
            harness9--prompt-command (or command #'harness9-steer)))
    (select-window (display-buffer buffer '((display-buffer-reuse-window
                                             display-buffer-below-selected)
                                            (window-height . 8))))
    (message "%s" (substitute-command-keys
                   "\\<harness9-prompt-mode-map>\\[harness9-prompt-send]: send, \\[harness9-prompt-cancel]: cancel"))
    buffer))

(defun harness9--prompt-close (buffer)
  "Kill the prompt BUFFER and close its window."
  (let ((window (get-buffer-window buffer)))
    (if (and window (not (one-window-p t window)))
        (quit-window t window)
      (kill-buffer buffer))))

(defun harness9-prompt-send ()
  "Send the prompt buffer's text to its command and close the buffer.
The buffer stays when the command refuses it (e.g. an empty prompt)."
  (interactive)
  (let ((prompt (string-trim (buffer-substring-no-properties (point-min) (point-max))))
        (command harness9--prompt-command)
        (buffer (current-buffer)))
    (funcall command prompt) ; from this buffer: its `default-directory' picks the project
    (harness9--prompt-close buffer)))

(defun harness9-prompt-cancel ()
  "Close the prompt buffer without sending its text."
  (interactive)
  (harness9--prompt-close (current-buffer)))

;;;; Keys

;; Stored sessions (harness9-sessions.el), loaded on first use.
(autoload 'harness9-sessions "harness9-sessions"
  "Show a stored session in a read-only buffer, as its runs were shown." t)
(autoload 'harness9-resume "harness9-sessions" "Continue a stored session." t)

;;;###autoload
(defvar harness9-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "r" #'harness9-run)
    (define-key map "s" #'harness9-steer)
    (define-key map "q" #'harness9-queue)
    (define-key map "u" #'harness9-unqueue)
    (define-key map "p" #'harness9-plan)
    (define-key map "g" #'harness9-go)
    (define-key map "c" #'harness9-cancel)
    (define-key map "b" #'harness9-show)
    (define-key map "i" #'harness9-prompt)
    (define-key map "l" #'harness9-sessions)
    (define-key map "R" #'harness9-resume)
    map)
  "The harness9 commands, bound under `harness9-keymap-prefix':
r `harness9-run', s `harness9-steer', q `harness9-queue', u `harness9-unqueue',
p `harness9-plan', g `harness9-go', c `harness9-cancel', b `harness9-show',
i `harness9-prompt', l `harness9-sessions', R `harness9-resume'.")
(defalias 'harness9-command-map harness9-command-map)

(defun harness9--set-keymap-prefix (symbol prefix)
  "Bind `harness9-command-map' globally under PREFIX (SYMBOL's new value).
The previous prefix is unbound when it still leads to the map; nil binds none."
  (let ((old (and (boundp symbol) (symbol-value symbol))))
    (when (and old (eq (global-key-binding (kbd old)) 'harness9-command-map))
      (global-unset-key (kbd old))))
  (set-default symbol prefix)
  (when prefix
    (global-set-key (kbd prefix) 'harness9-command-map)))

(defcustom harness9-keymap-prefix "C-c h"
  "The key under which `harness9-command-map' is bound globally, or nil for none.
Set it with `setopt' or Customize (or with `setq' before harness9 loads)."
  :type '(choice (string :tag "Key (as `kbd' reads it)") (const :tag "No binding" nil))
  :set #'harness9--set-keymap-prefix)

(provide 'harness9)
;;; harness9.el ends here
