;;; harness9-theme-test.el --- The run view's diffs are readable on dark and light themes  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded by editors/emacs/test.sh.  Batch Emacs has no colours, so the faces are measured in a
;; real terminal frame: a second Emacs runs with `-nw' in a pseudo-terminal of 256 colours
;; (xterm-256color), loads harness9.el and, for each theme, the diff lines of an edit as the run
;; view shows them; it writes the colours of each line's face and their contrast ratio (WCAG's,
;; from relative luminance: 4.5 is the least for text) to a file this Emacs reads.

;;; Code:

(require 'cl-lib)
(require 'color)
(require 'ert)
(require 'seq)

(defconst harness9-theme-test--diff
  "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
  "An edit's diff: a hunk header, a context line, a removed and an added line.")

(defun harness9-theme-test--luminance (color)
  "The relative luminance of COLOR on this frame (WCAG 2)."
  (let ((rgb (mapcar (lambda (v)
                       (let ((c (/ v 65535.0)))
                         (if (<= c 0.03928) (/ c 12.92) (expt (/ (+ c 0.055) 1.055) 2.4))))
                     (color-values color))))
    (+ (* 0.2126 (nth 0 rgb)) (* 0.7152 (nth 1 rgb)) (* 0.0722 (nth 2 rgb)))))

(defun harness9-theme-test--contrast (a b)
  "The contrast ratio of colours A and B, from 1 to 21."
  (let ((la (harness9-theme-test--luminance a))
        (lb (harness9-theme-test--luminance b)))
    (/ (+ (max la lb) 0.05) (+ (min la lb) 0.05))))

(defun harness9-theme-test--colours (face)
  "The foreground and background FACE (a face or list of faces) shows text with.
The first face that gives a colour gives it, else the default face; inverse
video swaps them."
  (let* ((faces (if (and (listp face) (not (keywordp (car-safe face)))) face (list face)))
         (faces (append (seq-filter #'facep faces) '(default)))
         (fg (seq-some (lambda (f) (face-foreground f nil t)) faces))
         (bg (seq-some (lambda (f) (face-background f nil t)) faces)))
    (if (seq-some (lambda (f) (face-inverse-video-p f nil t)) faces) (list bg fg) (list fg bg))))

(defun harness9-theme-test--measure (themes file)
  "Write to FILE, for each of THEMES, each diff line's face, colours and contrast.
Runs in the terminal Emacs; each entry is (THEME LINE FACE FG BG RATIO)."
  (require 'harness9)
  (let ((results nil))
    (dolist (theme themes)
      (mapc #'disable-theme custom-enabled-themes)
      (load-theme theme t)
      (dolist (line (harness9--diff-text harness9-theme-test--diff))
        (let* ((text (substring-no-properties line 6))
               (face (get-text-property 6 'face line))
               (colours (harness9-theme-test--colours face)))
          (push (list theme text face (car colours) (cadr colours)
                      (and (car colours) (cadr colours)
                           (/ (round (* 100 (apply #'harness9-theme-test--contrast colours)))
                              100.0)))
                results))))
    (with-temp-file file (prin1 (nreverse results) (current-buffer)))))

(defun harness9-theme-test--in-terminal (themes)
  "Run `harness9-theme-test--measure' on THEMES in an Emacs in a terminal; its entries."
  (let* ((file (make-temp-file "harness9-contrast" nil ".eld"))
         (process-environment (cons "TERM=xterm-256color" process-environment))
         (buffer (generate-new-buffer " *harness9 terminal*"))
         (process (make-process
                   :name "harness9-terminal" :buffer buffer :connection-type 'pty :noquery t
                   :command (list (expand-file-name invocation-name invocation-directory)
                                  "-nw" "-Q"
                                  "--eval" (format "(setq load-path '%S)" load-path)
                                  "-l" "harness9-theme-test"
                                  "--eval" (format "(harness9-theme-test--measure '%S %S)"
                                                   themes file)
                                  "--eval" "(kill-emacs 0)")))
         (deadline (+ (float-time) 60)))
    (set-process-window-size process 30 100)
    (unwind-protect
        (progn
          (while (and (process-live-p process) (< (float-time) deadline))
            (accept-process-output process 0.1))
          (with-temp-buffer
            (insert-file-contents file)
            (when (= (buffer-size) 0)
              (ert-fail (format "the terminal Emacs wrote nothing; it showed:\n%s"
                                (with-current-buffer buffer (buffer-string)))))
            (read (current-buffer))))
      (when (process-live-p process) (delete-process process))
      (kill-buffer buffer)
      (delete-file file))))

(ert-deftest harness9-test-diff-faces-contrast ()
  "An edit's diff lines are readable on dark themes and light ones, in a terminal:
the contrast of each line's text with its background is at least 4.5."
  (let* ((themes '(wombat modus-vivendi tango-dark modus-operandi leuven))
         (results (harness9-theme-test--in-terminal themes)))
    (should (equal (seq-uniq (mapcar #'car results)) themes))
    (should (= (length results) (* 4 (length themes))))
    (should (equal (seq-remove (lambda (entry) (and (nth 5 entry) (>= (nth 5 entry) 4.5)))
                               results)
                   nil))))

(provide 'harness9-theme-test)
;;; harness9-theme-test.el ends here
