;;; harness9-markdown-table.el --- Markdown tables in the *harness9* buffer  -*- lexical-binding: t; -*-

;;; Commentary:

;; A pipe table of the agent's text, its columns lined up: each row padded with blanks to the
;; widths its cells take on the screen (hidden marks take none), each cell placed as the
;; delimiter row says (`:--', `:-:', `--:'), the header bold.  When `harness9-hide-markup',
;; the `|'s are drawn as box lines and the delimiter row as a line across.  One line of the
;; view for each row: the text stays a table in markdown, padded.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'harness9-markdown-inline)

(defconst harness9--md-delimiter
  "\\`[ \t]*|?[ \t]*:?-+:?[ \t]*\\(|[ \t]*:?-+:?[ \t]*\\)*|?[ \t]*\\'"
  "A table's delimiter row, under its header: `| --- | :-: |'.")

(defun harness9--md-cells (row)
  "The cells of the table ROW, trimmed.
An escaped `\\|' is no border, nor a `|' in a code span (GitHub would
split there, but a model that means a border does not write it in code)."
  (let* ((row (string-trim row))
         (row (string-remove-prefix "|" row))
         (row (if (string-match-p "[^\\]|\\'" row) (substring row 0 -1) row))
         (cells nil) (from 0) (at 0))
    (while (< at (length row))
      (pcase (aref row at)
        (?\\ (cl-incf at))
        (?` (setq at (harness9--md-code-end row at)))
        (?| (push (substring row from at) cells) (setq from (1+ at))))
      (cl-incf at))
    (mapcar #'string-trim (nreverse (cons (substring row (min from (length row))) cells)))))

(defun harness9--md-code-end (row at)
  "Where the code span of ROW that opens AT ends (its last backtick).
When it is not closed, the end of its opening backticks."
  (string-match "`+" row at)
  (let ((ticks (- (match-end 0) at))
        (after (match-end 0)))
    (if (string-match (format "[^`]\\(`\\{%d\\}\\)\\(?:[^`]\\|\\'\\)" ticks) row after)
        (1- (match-end 1))
      (1- after))))

(defun harness9--md-table-p (lines)
  "Whether LINES start with a table: a header row, then its delimiter row."
  (and (cdr lines) (string-search "|" (car lines)) (string-search "|" (cadr lines))
       (string-match-p harness9--md-delimiter (cadr lines))
       (= (length (harness9--md-cells (car lines))) (length (harness9--md-cells (cadr lines))))))

(defun harness9--md-align (delimiter)
  "The alignment a DELIMITER cell (`:--', `:-:', `--:') asks for, or nil."
  (pcase (cons (string-prefix-p ":" delimiter) (string-suffix-p ":" delimiter))
    ('(t . t) 'center) ('(nil . t) 'right) ('(t . nil) 'left)))

(defun harness9--md-cell (cell)
  "The table CELL's text shown; a `\\|' in it shows as `|', in code too."
  (let ((shown (harness9--markdown-inline cell))
        (start 0))
    (while (string-match "\\\\|" shown start)
      (setq start (match-end 0))
      (harness9--markup shown (match-beginning 0) (1+ (match-beginning 0))))
    shown))

(defun harness9--md-pad (cell width align)
  "CELL padded with blanks to WIDTH columns, placed as ALIGN says."
  (let* ((room (max 0 (- width (harness9--shown-width cell))))
         (left (pcase align ('right room) ('center (/ room 2)) (_ 0))))
    (concat (make-string left ?\s) cell (make-string (- room left) ?\s))))

(defun harness9--md-border ()
  "A table's `|', drawn as a box line."
  (let ((bar (copy-sequence "|")))
    (harness9--markup bar 0 1 (propertize "│" 'face 'harness9-markup))
    bar))

(defun harness9--md-row (indent cells widths aligns)
  "A table row of CELLS (shown) padded to WIDTHS as ALIGNS say, after INDENT."
  (concat indent (harness9--md-border)
          (apply #'concat
                 (cl-loop for width in widths for align in aligns for i from 0
                          collect (concat " " (harness9--md-pad (or (nth i cells) "") width align)
                                          " " (harness9--md-border))))))

(defun harness9--md-delimiter (indent widths aligns)
  "A table's delimiter row for columns of WIDTHS and ALIGNS after INDENT.
When the marks are hidden it is drawn as a line across."
  (let* ((cells (cl-loop for width in widths for align in aligns
                         collect (concat (if (memq align '(left center)) ":" "-")
                                         (make-string width ?-)
                                         (if (memq align '(right center)) ":" "-"))))
         (row (concat "|" (string-join cells "|") "|"))
         (line (concat "├" (mapconcat (lambda (w) (make-string (+ w 2) ?─)) widths "┼") "┤")))
    (harness9--markup row 0 (length row) (propertize line 'face 'harness9-markup))
    (concat indent row)))

(defun harness9--md-table (lines)
  "The table LINES start with, its columns lined up: (SHOWN . REST).
The header's cells are bold; the rows end at a line without `|'."
  (let* ((indent (progn (string-match "\\`[ \t]*" (car lines)) (match-string 0 (car lines))))
         (aligns (mapcar #'harness9--md-align (harness9--md-cells (cadr lines))))
         (rest (cddr lines))
         (rows (list (car lines))))
    (while (and rest (string-search "|" (car rest)) (not (string-blank-p (car rest))))
      (push (pop rest) rows))
    (let* ((cells (mapcar (lambda (row) (mapcar #'harness9--md-cell (harness9--md-cells row)))
                          (nreverse rows)))
           (count (apply #'max (mapcar #'length cells)))
           (aligns (append aligns (make-list (max 0 (- count (length aligns))) nil)))
           (widths (cl-loop for i below count
                            collect (apply #'max 1 (mapcar (lambda (row)
                                                             (harness9--shown-width
                                                              (or (nth i row) "")))
                                                           cells)))))
      (dolist (cell (car cells))
        (add-face-text-property 0 (length cell) 'bold t cell))
      (cons (append (list (harness9--md-row indent (car cells) widths aligns)
                          (harness9--md-delimiter indent widths aligns))
                    (mapcar (lambda (row) (harness9--md-row indent row widths aligns))
                            (cdr cells)))
            rest))))

(provide 'harness9-markdown-table)
;;; harness9-markdown-table.el ends here
