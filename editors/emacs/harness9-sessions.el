;;; harness9-sessions.el --- Stored harness9 sessions, shown or continued  -*- lexical-binding: t; -*-

;;; Commentary:

;; The daemon keeps each session (`agent/sessions' lists a workspace's, newest first;
;; `agent/session' gives one's conversation).  `harness9-sessions' picks one and shows its
;; conversation in a read-only buffer as the *harness9* buffer showed its runs live;
;; `harness9-resume' shows it in *harness9* and makes the next runs continue it.
;;
;; A stored tool call keeps its `outcome': the fields its tool_completed or tool_failed had,
;; and the approval that decided it; a task's keeps its child's conversation (`transcript').
;; Each is turned back into the notifications it stands for and folded in by `harness9--apply',
;; so a stored row is drawn by the same code as a live one.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'subr-x)
(require 'json)
(require 'jsonrpc)
(require 'parse-time)
(require 'harness9)

;;;; Picking a session

(defun harness9--session-label (session)
  "How the picker shows SESSION: its title, when it was last used, its turns."
  (let ((title (plist-get session :title))
        (at (or (plist-get session :updatedAt) (plist-get session :createdAt) ""))
        (turns (or (plist-get session :turns) 0)))
    (format "%s · %s · %s"
            (if (and (stringp title) (not (string-blank-p title)))
                title
              (plist-get session :sessionId))
            (condition-case nil
                (format-time-string "%Y-%m-%d %H:%M" (parse-iso8601-time-string at))
              (error at))
            (harness9--plural turns "turn"))))

(defun harness9--session-choices (sessions)
  "An alist of (LABEL . sessionId) for SESSIONS, in their order.
A label that two sessions share gets each one's id."
  (let ((labels (mapcar #'harness9--session-label sessions)))
    (cl-mapcar (lambda (label session)
                 (cons (if (> (seq-count (apply-partially #'equal label) labels) 1)
                           (format "%s · %s" label (plist-get session :sessionId))
                         label)
                       (plist-get session :sessionId)))
               labels sessions)))

(defun harness9--pick-session (prompt)
  "Ask with PROMPT for one of the project's stored sessions; return its id."
  (let* ((reply (jsonrpc-request (harness9-connection) :agent/sessions nil))
         (choices (harness9--session-choices (append (plist-get reply :sessions) nil))))
    (unless choices (user-error "harness9: no stored sessions in this project yet"))
    (let ((label (completing-read
                  prompt
                  ;; Newest first, as the daemon lists them: not sorted again.
                  (lambda (string pred action)
                    (if (eq action 'metadata)
                        '(metadata (display-sort-function . identity)
                                   (cycle-sort-function . identity))
                      (complete-with-action action choices string pred)))
                  nil t)))
      (or (cdr (assoc label choices))
          (user-error "harness9: no such session: %s" label)))))

;;;; A stored session as runs of the run view

(defun harness9--stored-arguments (arguments)
  "The stored ARGUMENTS (JSON, as the model wrote it) as notifications have them."
  (if (stringp arguments)
      (condition-case nil
          (json-parse-string arguments :object-type 'plist :null-object nil
                             :false-object :json-false)
        (error arguments))
    arguments))

(defun harness9--stored-text (content)
  "The text of a stored message's CONTENT."
  (if (stringp content) content ""))

(defun harness9--stored-results (messages)
  "A table of the tool results among MESSAGES: their text, by their call's id."
  (let ((results (make-hash-table :test #'equal)))
    (seq-doseq (msg messages)
      (when (stringp (plist-get msg :toolCallId))
        (puthash (plist-get msg :toolCallId) (harness9--stored-text (plist-get msg :content))
                 results)))
    results))

(defun harness9--told (outcome)
  "What OUTCOME's tool_completed or tool_failed told besides the output."
  (cl-loop for (key value) on outcome by #'cddr
           unless (memq key '(:status :approval :turn :started :asked :transcript))
           append (list key value)))

(defun harness9--outcome-events (call id turn parent output)
  "The notifications the stored CALL (its id in the run view ID) stands for.
Its question and the answer (or the rule's), its start unless it never ran,
and its end with OUTPUT.  TURN is its turn; PARENT its task's id, or nil."
  (let* ((outcome (plist-get call :outcome))
         (approval (plist-get outcome :approval))
         (status (or (plist-get outcome :status) "completed"))
         (base (append (list :toolCallId id :tool (plist-get call :name) :turn turn
                             :arguments (harness9--stored-arguments (plist-get call :arguments)))
                       (when parent (list :parentToolCallId parent)))))
    (delq nil
          (list (when (or (equal (plist-get approval :by) "user") (eq (plist-get outcome :asked) t))
                  (append (list :kind "approval_requested") base))
                (when approval
                  (append (list :kind "approval_resolved" :decision (plist-get approval :decision)
                                :by (plist-get approval :by) :rule (plist-get approval :rule))
                          base))
                (unless (or (member status '("rejected" "denied"))
                            (eq (plist-get outcome :started) :json-false))
                  (append (list :kind "tool_started") base))
                (append (if (equal status "completed")
                            (list :kind "tool_completed")
                          (list :kind "tool_failed" :reason status))
                        (list :output output)
                        (harness9--told outcome)
                        base)))))

(defun harness9--stored-call (run-id turn call results &optional parent)
  "Fold the stored CALL of RUN-ID's TURN into its run, as its notifications did.
RESULTS holds the tool results of its conversation; PARENT is its task's id."
  (let* ((own (plist-get call :id))
         ;; A child's call is known live by its wire id (unique beside the parent's).
         (id (if parent (or (plist-get call :wireId) (format "%s/%s" parent own)) own))
         (outcome (plist-get call :outcome))
         (base (list :runId run-id)))
    (if (not outcome)
        ;; Stored before calls kept their outcome: done, as nothing more is known.
        (let ((run (harness9--apply
                    (append base (list :kind "tool_started" :toolCallId id :turn turn
                                       :tool (plist-get call :name)
                                       :arguments (harness9--stored-arguments
                                                   (plist-get call :arguments)))
                            (when parent (list :parentToolCallId parent))))))
          (let ((tool (alist-get id (harness9--run-tools run) nil nil #'equal)))
            (setf (harness9--tool-status tool) 'ok
                  (harness9--tool-output tool) (gethash own results))))
      (dolist (ev (harness9--outcome-events call id turn parent (gethash own results)))
        (harness9--apply (append base ev)))
      (harness9--stored-plan run-id turn call)
      (when (plist-get outcome :transcript)
        (harness9--stored-child run-id id (plist-get outcome :transcript))))))

(defun harness9--stored-plan (run-id turn call)
  "The plan the stored `update_plan' CALL of RUN-ID's TURN made, as its event."
  (let ((arguments (harness9--stored-arguments (plist-get call :arguments))))
    (when (and (equal (plist-get call :name) "update_plan")
               (equal (plist-get (plist-get call :outcome) :status) "completed")
               (listp arguments))
      (harness9--apply (list :runId run-id :kind "plan" :turn turn
                             :items (plist-get arguments :items)
                             :note (plist-get arguments :note))))))

(defun harness9--stored-child (run-id task transcript)
  "Fold the child conversation TRANSCRIPT of the task call TASK into RUN-ID's.
Its text and its calls go under the task's row, as they did live."
  (let ((results (harness9--stored-results transcript)))
    (seq-doseq (msg transcript)
      (when (and (equal (plist-get msg :role) "assistant") (not (plist-get msg :toolCallId)))
        (harness9--apply (list :runId run-id :kind "assistant_message" :parentToolCallId task
                               :text (harness9--stored-text (plist-get msg :content))))
        (seq-doseq (call (or (plist-get msg :toolCalls) []))
          (harness9--stored-call run-id 0 call results task))))))

(defun harness9--stored-prompt (text)
  "The prompt the user wrote, from a stored user message's TEXT.
The editor context attached to it is left out."
  (replace-regexp-in-string "\n\nAttached from the editor (.*\\'" "" text))

(defun harness9--stored-run (session info index server)
  "A finished run of SESSION for the view, from its record INFO (number INDEX).
SERVER is the connection its session lives on."
  (harness9--make-run
   :prompt (plist-get info :prompt)
   ;; Its own id: no live notification finds it.
   :id (format "%s/stored-%d" (plist-get session :sessionId) index)
   :session (plist-get session :sessionId) :server server :done t
   :status (plist-get info :status) :turn-count (plist-get info :turns)
   :tool-count (plist-get info :toolCalls) :cost (plist-get info :costUsd)))

(defun harness9--steer-p (text infos next)
  "Whether the user message TEXT within a run was steered into it.
It is, when no run record from the NEXTth of INFOS on has it as its prompt."
  (and infos (not (seq-find (lambda (info) (equal (plist-get info :prompt) text))
                            (nthcdr next infos)))))

(defun harness9--stored-runs (session server)
  "The runs of the `agent/session' result SESSION as the run view holds them.
Each user message starts a run (its record in `runs' gives its prompt and how
it ended); an assistant message is a turn, with its calls.  SERVER as in
`harness9--stored-run'."
  (let* ((messages (plist-get session :messages))
         (infos (append (plist-get session :runs) nil))
         (results (harness9--stored-results messages))
         (harness9--runs nil)
         (run nil) (turn 0))
    (seq-doseq (msg messages)
      (let ((role (plist-get msg :role))
            (text (harness9--stored-text (plist-get msg :content))))
        (cond
         ((plist-get msg :toolCallId))  ; a result: shown with its call
         ((and (equal role "user") run
               (harness9--steer-p (harness9--stored-prompt text) infos (length harness9--runs)))
          (harness9--apply (list :runId (harness9--run-id run) :kind "steered"
                                 :text (harness9--stored-prompt text))))
         ((equal role "user")
          (let* ((index (length harness9--runs))
                 (info (or (nth index infos) (list :prompt (harness9--stored-prompt text)))))
            (setq run (harness9--stored-run session info index server)
                  turn 0
                  harness9--runs (append harness9--runs (list run)))))
         ((and run (equal role "assistant"))
          (setq turn (1+ turn))
          (harness9--apply (list :runId (harness9--run-id run) :kind "assistant_message"
                                 :turn turn :text text))
          (seq-doseq (call (or (plist-get msg :toolCalls) []))
            (harness9--stored-call (harness9--run-id run) turn call results))))))
    harness9--runs))

(defun harness9--load-session (session-id)
  "The `agent/session' result for SESSION-ID and its runs: (SESSION . RUNS)."
  (let* ((server (harness9-connection))
         (session (jsonrpc-request server :agent/session (list :sessionId session-id))))
    (cons session (harness9--stored-runs session server))))

;;;; The commands

(defvar-local harness9--shown-session nil
  "The id of the stored session a `harness9-session-mode' buffer shows.")

(defvar harness9-session-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "r") #'harness9-resume-shown)
    map)
  "Keys of a stored session's buffer: r continues the session.")

(define-derived-mode harness9-session-mode harness9-mode "harness9 session"
  "Major mode of a buffer showing a stored session as the run buffer showed it.
\\{harness9-session-mode-map}")

;;;###autoload
(defun harness9-sessions (session-id)
  "Show the stored session SESSION-ID (picked from the project's), read-only.
Its runs read as the *harness9* buffer showed them live;
\\<harness9-session-mode-map>\\[harness9-resume-shown] there continues it.
Returns the buffer."
  (interactive (list (harness9--pick-session "harness9 session: ")))
  (pcase-let* ((root (harness9--root))
               (`(,session . ,runs) (harness9--load-session session-id))
               (buffer (get-buffer-create
                        (format "*harness9 session: %s*" (plist-get session :title)))))
    (with-current-buffer buffer
      (harness9-session-mode)
      ;; Its project's: `harness9-resume-shown' continues the session there.
      (setq default-directory root
            harness9--shown-session session-id)
      (let ((inhibit-read-only t)
            (harness9--runs runs))
        (erase-buffer)
        (insert (harness9-view-text))
        (goto-char (point-min))))
    (display-buffer buffer)
    buffer))

;;;###autoload
(defun harness9-resume (session-id)
  "Continue the stored session SESSION-ID (picked from the project's).
*harness9* shows its conversation, and the next runs go on with it."
  (interactive (list (harness9--pick-session "harness9 resume: ")))
  (when harness9--active
    (user-error "harness9: a run is in progress; resume once it ends (harness9-cancel stops it)"))
  (pcase-let ((`(,_session . ,runs) (harness9--load-session session-id)))
    (setf (alist-get (harness9-connection) harness9--sessions) session-id)
    (setq harness9--runs runs
          harness9--orphans nil)
    (harness9--render)
    (with-current-buffer (harness9-buffer) (goto-char (point-max)))
    (display-buffer (harness9-buffer))
    session-id))

(defun harness9-resume-shown ()
  "Continue the stored session this buffer shows (see `harness9-resume')."
  (interactive)
  (unless harness9--shown-session (user-error "harness9: this buffer shows no stored session"))
  (harness9-resume harness9--shown-session))

(provide 'harness9-sessions)
;;; harness9-sessions.el ends here
