;;; harness9-plain-test.el --- eglot without harness9.el drives the daemon  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by editors/emacs/test.sh in an Emacs of its own that never loads harness9.el: stock
;; eglot starts `harness9 serve' as it starts any language server, configured as the README's
;; "Helix, Zed, Sublime, Kate, Kakoune" section says, with a scripted (replay) model named in
;; the environment.  H9_DAEMON names the daemon, H9_RUFF ruff, H9_RASS rassumfrassum's folder
;; (eglot runs one server per buffer: rass, an LSP multiplexer, puts ruff and the daemon behind
;; one connection, so eglot's code actions carry ruff's problems to the daemon).
;;
;; Three scenarios: a quick fix of a real ruff error (`eglot-code-actions'), an instruction
;; comment run, and a question (`window/showMessageRequest') answered in the minibuffer.

;;; Code:

(require 'ert)
(require 'eglot)
(require 'cl-lib)

(defconst harness9-plain-test--dir (file-name-directory (or load-file-name buffer-file-name)))
(defconst harness9-plain-test--timeout 45 "Seconds any wait may take before the test fails.")

(defvar harness9-plain-test--messages nil "What eglot showed with `message', newest first.")

(defun harness9-plain-test--record (format-string &rest args)
  "Record the message FORMAT-STRING with ARGS makes (advice before `message')."
  (when format-string
    (push (apply #'format-message format-string args) harness9-plain-test--messages)))

(defun harness9-plain-test--wait (what pred)
  "Wait until PRED is true; fail naming WHAT after `harness9-plain-test--timeout' seconds."
  (let ((deadline (+ (float-time) harness9-plain-test--timeout)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      ;; eglot sends a buffer's changes when Emacs is idle, which a batch Emacs never is.
      (when (eglot-managed-p) (eglot--signal-textDocument/didChange))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (ert-fail (format "timed out after %ss waiting for %s; messages:\n%s" harness9-plain-test--timeout
                        what (string-join (reverse harness9-plain-test--messages) "\n"))))))

(defun harness9-plain-test--finished ()
  "The daemon's closing message of a run, as eglot showed it, or nil."
  (cl-loop for m in harness9-plain-test--messages
           when (string-match "\\(harness9 ([a-z]+): .*\\)" m) return (match-string 1 m)))

(defun harness9-plain-test--pick (title)
  "Run `eglot-code-actions' at point as a keyboard user does, picking the action TITLE.
Returns the titles eglot offered."
  (let ((offered nil)
        (last-nonmenu-event ?\r))  ; a key, not a mouse click: eglot asks in the minibuffer
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq offered (all-completions "" collection))
                 title)))
      (call-interactively #'eglot-code-actions))
    offered))

(defmacro harness9-plain-test--with-eglot (file text contact replay approvals &rest body)
  "Visit FILE (written with TEXT) in a fresh workspace and connect eglot with CONTACT (a
function of no argument returning the server command) to a daemon replaying
tests/replay-REPLAY.json in the approval mode APPROVALS; run BODY with `ws' and `server'
bound."
  (declare (indent 5))
  `(let* ((ws (file-name-as-directory (make-temp-file "harness9-plain" t)))
          (default-directory ws)
          (process-environment
           (append (list "HARNESS9_PROVIDER=replay"
                         (concat "HARNESS9_REPLAY=" harness9-plain-test--dir "replay-" ,replay ".json")
                         (concat "HARNESS9_APPROVALS=" ,approvals))
                   process-environment))
          (eglot-server-programs (list (cons 'python-mode (funcall ,contact))))
          ;; As the README says: the daemon's edits apply without a question, and a buffer the
          ;; daemon edited again (its file written since) is not offered for a revert.
          (eglot-confirm-server-initiated-edits nil)
          (query-about-changed-file nil)
          (project-find-functions (list (lambda (_dir) (cons 'transient ws))))
          (harness9-plain-test--messages nil)
          (server nil) (passed nil))
     (advice-add 'message :before #'harness9-plain-test--record)
     (unwind-protect
         (progn
           (with-temp-file (expand-file-name ,file ws) (insert ,text))
           (find-file (expand-file-name ,file ws))
           (python-mode)
           (let ((eglot-sync-connect t))
             (call-interactively #'eglot))
           (setq server (eglot-current-server))
           (should server)
           ,@body
           (setq passed t))
       (advice-remove 'message #'harness9-plain-test--record)
       (unless passed
         (message "messages:\n%s" (string-join (reverse harness9-plain-test--messages) "\n"))
         (harness9-plain-test--dump server))
       (when server (ignore-errors (eglot-shutdown server nil 5)))
       (dolist (b (buffer-list))
         (when (and (buffer-file-name b) (string-prefix-p ws (buffer-file-name b)))
           (with-current-buffer b (set-buffer-modified-p nil))
           (kill-buffer b)))
       (delete-directory ws t))))

(defun harness9-plain-test--dump (server)
  "Print the end of SERVER's events buffer and its stderr (what helps to understand a failure)."
  (when server
    (dolist (buffer (list (jsonrpc-events-buffer server)
                          (get-buffer (format " *%s stderr*" (jsonrpc-name server)))
                          (get-buffer (format "*%s stderr*" (jsonrpc-name server)))))
      (when (buffer-live-p buffer)
        (with-current-buffer buffer
          (message "--- %s:\n%s" (buffer-name)
                   (buffer-substring (max (point-min) (- (point-max) 8000)) (point-max))))))))

(defun harness9-plain-test--daemon ()
  "The daemon alone: `harness9 serve'."
  (list (getenv "H9_DAEMON") "serve"))

(defun harness9-plain-test--ruff-and-daemon ()
  "ruff and the daemon behind rassumfrassum: `rass -- ruff server -- harness9 serve'."
  (list "env" (concat "PYTHONPATH=" (getenv "H9_RASS")) (getenv "H9_PYTHON") "-m" "rassumfrassum"
        "--" (getenv "H9_RUFF") "server" "--" (getenv "H9_DAEMON") "serve"))

(ert-deftest harness9-plain-test-no-plugin ()
  "These tests run in an Emacs without harness9.el."
  (should-not (featurep 'harness9))
  (should-not (locate-library "harness9")))

(ert-deftest harness9-plain-test-quick-fix ()
  "ruff's real problem, offered as \"Fix with harness9: …\" by `eglot-code-actions', fixed by
the run the action starts; the buffer and the file get the fix, the echo area the answer."
  (harness9-plain-test--with-eglot "total.py"
      "def total(items):\n    return sum(item for item in itemz)\n"
      #'harness9-plain-test--ruff-and-daemon "plainfix" "yolo"
    (harness9-plain-test--wait "ruff's problem in flymake"
      (lambda () (flymake-diagnostics (point-min) (point-max))))
    (goto-char (point-min))
    (search-forward "itemz")
    (backward-char 2)
    (let ((offered (harness9-plain-test--pick "Fix with harness9: Undefined name `itemz`")))
      (should (member "Fix with harness9: Undefined name `itemz`" offered))
      (should (member "Ruff (F821): Disable for this line" offered)))
    (harness9-plain-test--wait "the run's closing message" #'harness9-plain-test--finished)
    (should (string-prefix-p "harness9 (completed): Fixed: `itemz` was a typo of `items`. — the whole run: "
                             (harness9-plain-test--finished)))
    (let ((fixed "def total(items):\n    return sum(item for item in items)\n"))
      (should (equal (buffer-string) fixed))
      (should (equal (with-temp-buffer (insert-file-contents (expand-file-name "total.py" ws))
                                       (buffer-string))
                     fixed)))))

(ert-deftest harness9-plain-test-instruction-comment ()
  "An instruction comment offered as a code action on its line; the run does it, and the
comment leaves the buffer and the file."
  (harness9-plain-test--with-eglot "stats.py"
      "# harness9: add mean(items) below total, built on it\ndef total(items):\n    return sum(items)\n"
      #'harness9-plain-test--daemon "plaininstruction" "yolo"
    (goto-char (point-min))
    (let ((offered (harness9-plain-test--pick "harness9: add mean(items) below total, built on it")))
      (should (equal offered '("harness9: add mean(items) below total, built on it"))))
    (harness9-plain-test--wait "the run's closing message" #'harness9-plain-test--finished)
    (should (string-prefix-p "harness9 (completed): Added mean(items), built on total."
                             (harness9-plain-test--finished)))
    (let ((after (concat "def total(items):\n    return sum(items)\n\n\n"
                         "def mean(items):\n    return total(items) / len(items)\n")))
      (harness9-plain-test--wait "the comment's removal" (lambda () (equal (buffer-string) after)))
      (should (equal (with-temp-buffer (insert-file-contents (expand-file-name "stats.py" ws))
                                       (buffer-string))
                     after)))))

(ert-deftest harness9-plain-test-question ()
  "A prompt run with `eglot-execute-command' in the ask mode: the command the agent wants to
run is asked with window/showMessageRequest, which eglot shows in the minibuffer; allowed."
  (harness9-plain-test--with-eglot "total.py" "def total(items):\n    return sum(items)\n"
      #'harness9-plain-test--daemon "plainask" "ask"
    (let ((questions nil))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt collection &rest _)
                   (push (list prompt (all-completions "" collection)) questions)
                   "Allow once")))
        (eglot-execute-command server 'harness9.run
                               (vector (list :prompt "count the Python files into count.txt")))
        (harness9-plain-test--wait "the run's closing message" #'harness9-plain-test--finished))
      (should (string-prefix-p "harness9 (completed): There is 1 Python file; count.txt says so."
                               (harness9-plain-test--finished)))
      (should (equal (length questions) 1))
      (should (string-match-p "harness9 asks to run bash: ls \\*\\.py | wc -l > count\\.txt"
                              (car (car questions))))
      (should (equal (cadr (car questions)) '("Allow once" "Allow for this session" "Reject")))
      (should (equal (with-temp-buffer (insert-file-contents (expand-file-name "count.txt" ws))
                                       (buffer-string))
                     "1\n")))))

;;; harness9-plain-test.el ends here
