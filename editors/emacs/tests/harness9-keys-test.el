;;; harness9-keys-test.el --- Refreshed buffers and default keys of harness9.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded after harness9-test.el by editors/emacs/test.sh.  A bash call that changes two open
;; files: the unmodified buffer is reverted to the new text, the one with unsaved changes keeps
;; them.  The default keys: C-c h r / c / b run the commands; another prefix moves them; nil
;; removes them.

;;; Code:

(require 'ert)
(require 'harness9)
(require 'harness9-test)

(ert-deftest harness9-test-refresh-changed-buffers ()
  (harness9-test--with-daemon "refresh"
    (with-temp-file (expand-file-name "b.txt" ws) (insert "b\n"))
    (let ((a (find-file-noselect (expand-file-name "a.txt" ws)))
          (b (find-file-noselect (expand-file-name "b.txt" ws))))
      (unwind-protect
          (progn
            (with-current-buffer b (erase-buffer) (insert "mine\n"))
            (should (equal "completed" (plist-get (harness9-run-and-wait "change both") :status)))
            (should (equal "hello from a.txt\nmore\n" (with-current-buffer a (buffer-string))))
            (should-not (buffer-modified-p a))
            (should (equal "mine\n" (with-current-buffer b (buffer-string))))
            (should (buffer-modified-p b)))
        (dolist (buffer (list a b))
          (with-current-buffer buffer (set-buffer-modified-p nil))
          (kill-buffer buffer))))))

(ert-deftest harness9-test-default-keys ()
  (unwind-protect
      (progn
        (should (eq 'harness9-run (key-binding (kbd "C-c h r"))))
        (should (eq 'harness9-cancel (key-binding (kbd "C-c h c"))))
        (should (eq 'harness9-show (key-binding (kbd "C-c h b"))))
        (should (eq 'harness9-sessions (key-binding (kbd "C-c h l"))))
        (should (eq 'harness9-resume (key-binding (kbd "C-c h R"))))
        (customize-set-variable 'harness9-keymap-prefix "C-c a")
        (should (eq 'harness9-run (key-binding (kbd "C-c a r"))))
        (should-not (key-binding (kbd "C-c h")))
        (customize-set-variable 'harness9-keymap-prefix nil)
        (should-not (key-binding (kbd "C-c a"))))
    (customize-set-variable 'harness9-keymap-prefix "C-c h")))

(provide 'harness9-keys-test)
;;; harness9-keys-test.el ends here
