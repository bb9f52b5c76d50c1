;;; harness9-steer-test.el --- Steering, queueing and the plan in harness9.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded after harness9-test.el by editors/emacs/test.sh, against the real daemon.  A steer
;; sent while bash runs shows where the run took it in; with nothing running it is a prompt.
;; A prompt queued behind a run shows as queued, then runs in the same session.  The plan
;; shows as one checklist, updated in place; a plan-mode run changes nothing, `harness9-go'
;; carries the plan out.  The keys of the new commands.

;;; Code:

(require 'ert)
(require 'harness9)
(require 'harness9-test)

(defun harness9-steer-test--lines ()
  "The *harness9* buffer's lines, tool output left out."
  (seq-remove (lambda (l) (string-prefix-p "    │ " l))
              (split-string (harness9-test--text) "\n")))

(defun harness9-steer-test--events (kind)
  "The notifications of KIND, oldest first."
  (seq-filter (lambda (ev) (equal (plist-get ev :kind) kind)) (reverse harness9-events)))

(ert-deftest harness9-test-steer ()
  "A steer while bash runs joins the run before its next turn; with no run it is a prompt."
  (harness9-test--with-daemon "steer"
    (let ((run (harness9-run "look around")))
      (harness9-test--wait "the bash tool to start"
                           (lambda () (string-match-p "^  … bash: sleep 1$" (harness9-test--text))))
      (should (eq (harness9-steer "check b.txt too") run))
      (harness9-test--wait "the run to end" (lambda () (harness9--run-done run)))
      (should (equal (harness9--run-status run) "completed"))
      (should (equal (harness9-steer-test--lines)
                     '("» look around"
                       "── turn 1"
                       "Looking."
                       "  ✓ bash: sleep 1  (N ms)"
                       "  ↪ you: check b.txt too"
                       "── turn 2"
                       "Steered."
                       "■ completed · 2 turns · 1 tool call · N in / N out tokens")))
      (let ((steered (harness9-steer-test--events "steered")))
        (should (equal (mapcar (lambda (ev) (list (plist-get ev :turn) (plist-get ev :text)))
                               steered)
                       '((2 "check b.txt too"))))))
    (should-not harness9--active)
    (let ((again (harness9-steer "and now?")))
      (harness9-test--wait "the prompt's run to end" (lambda () (harness9--run-done again)))
      (should (equal (harness9--run-status again) "completed"))
      (should (member "» and now?" (harness9-steer-test--lines))))
    (harness9-test--check-seqs)))

(ert-deftest harness9-test-queue ()
  "A prompt queued behind a running run shows as queued, then runs in the same session."
  (harness9-test--with-daemon "steer"
    (let ((first (harness9-run "first")))
      (harness9-test--wait "the bash tool to start"
                           (lambda () (string-match-p "^  … bash: sleep 1$" (harness9-test--text))))
      (let ((second (harness9-queue "second")))
        (should-not (eq first second))
        (harness9-test--wait "the queued line (or the end of the queued run)"
                             (lambda () (or (member "⏵ queued (1)" (harness9-steer-test--lines))
                                            (harness9--run-done second))))
        (should (member "⏵ queued (1)" (harness9-steer-test--lines)))
        (should (eq harness9--active first))
        (harness9-test--wait "both runs to end" (lambda () (and (harness9--run-done first)
                                                                (harness9--run-done second))))
        (should (equal (list (harness9--run-status first) (harness9--run-status second))
                       '("completed" "completed")))
        (should (equal (harness9--run-session first) (harness9--run-session second)))
        (should (equal (mapcar (lambda (ev) (list (plist-get ev :runId) (plist-get ev :reason)))
                               (harness9-steer-test--events "dequeued"))
                       (list (list (harness9--run-id second) "started"))))
        (let* ((lines (harness9-steer-test--lines))
               (tail (member "» second" lines)))
          (should tail)
          (should (equal (car (last tail))
                         "■ completed · 2 turns · 1 tool call · N in / N out tokens"))
          (should-not (member "⏵ queued (1)" lines)))))
    (should-not harness9--active)
    (harness9-test--check-seqs)))

(ert-deftest harness9-test-unqueue ()
  "`harness9-unqueue' takes the newest queued prompt back: it ends cancelled, never run."
  (harness9-test--with-daemon "steer"
    (let ((first (harness9-run "first")))
      (harness9-test--wait "the bash tool to start"
                           (lambda () (string-match-p "^  … bash: sleep 1$" (harness9-test--text))))
      (let* ((second (harness9-queue "second"))
             (third (harness9-queue "third")))
        (harness9-test--wait "both queued" (lambda () (and (harness9--run-queue-id second)
                                                           (harness9--run-queue-id third))))
        (should (eq (harness9-unqueue) t))
        (harness9-test--wait "every run to end"
                             (lambda () (seq-every-p #'harness9--run-done (list first second third))))
        (should (equal (mapcar #'harness9--run-status (list first second third))
                       '("completed" "completed" "cancelled")))
        (should (equal (mapcar (lambda (ev) (plist-get ev :reason))
                               (harness9-steer-test--events "dequeued"))
                       '("removed" "started")))
        (let ((tail (member "» third" (harness9-steer-test--lines))))
          (should (string-prefix-p "■ cancelled" (cadr tail))))))
    (harness9-test--check-seqs)))

(ert-deftest harness9-test-plan ()
  "A plan-mode run writes nothing and shows its plan once, as last updated; `harness9-go'
carries it out."
  (harness9-test--with-daemon "plan"
    (let ((planned (harness9-plan "write x.txt, then say so")))
      (harness9-test--wait "the plan run to end" (lambda () (harness9--run-done planned)))
      (should (equal (harness9--run-status planned) "completed")))
    (should-not (file-exists-p (expand-file-name "x.txt" ws)))
    (let ((lines (harness9-steer-test--lines)))
      (should (equal (seq-take lines 6)
                     '("» write x.txt, then say so"
                       "── turn 1"
                       "Planning."
                       "── plan 2/2 done"
                       "  [x] write x.txt"
                       "  [x] say so")))
      (should (string-prefix-p "  ✗ write_file:" (nth 6 lines)))  ; refused in plan mode
      (should (= 1 (seq-count (lambda (l) (string-prefix-p "── plan" l)) lines)))
      (should-not (seq-find (lambda (l) (string-match-p "update_plan" l)) lines)))
    (let ((plans (harness9-steer-test--events "plan")))
      (should (equal (mapcar (lambda (ev) (plist-get ev :turn)) plans) '(1 2)))
      (should (equal (plist-get (car plans) :note) "two steps")))
    (let ((go (harness9-go)))
      (harness9-test--wait "the plan to be carried out" (lambda () (harness9--run-done go)))
      (should (equal (harness9--run-status go) "completed")))
    (should (file-exists-p (expand-file-name "x.txt" ws)))
    (should (member "» (carry out the plan)" (harness9-steer-test--lines)))
    (harness9-test--check-seqs)))

(ert-deftest harness9-test-steer-keys ()
  (should (eq 'harness9-steer (key-binding (kbd "C-c h s"))))
  (should (eq 'harness9-queue (key-binding (kbd "C-c h q"))))
  (should (eq 'harness9-unqueue (key-binding (kbd "C-c h u"))))
  (should (eq 'harness9-plan (key-binding (kbd "C-c h p"))))
  (should (eq 'harness9-go (key-binding (kbd "C-c h g")))))

(provide 'harness9-steer-test)
;;; harness9-steer-test.el ends here
