#!/usr/bin/env bash
# Emacs recipe tests: batch Emacs loads harness9.el, starts the real daemon through eglot with a
# scripted model, drives a whole run, a cancel and approvals answered in the minibuffer, and checks
# the notifications, the buffer and the workspace; buffers of files a run changed are refreshed;
# steering a run, queueing behind it and the plan checklist;
# agent edits of a synced buffer show in it and `undo` takes them back; the default keys; ruff's
# problems (a real second language server through eglot) reach the agent after each edit; an
# agent edit leaves its buffer unmodified, unasked by eglot, and `undo' modifies it; edits' diffs
# and the agent's markdown in the run buffer (its layout as shown, and each kind of mark); the
# diff faces' contrast on dark and light themes, measured in a second Emacs in a terminal (-nw in
# a pseudo-terminal of 256 colours); refused calls' rows; the prompt buffer; a child agent's rows
# under its task (the repository's fake LLM, tests/fakellm, as the model); a stored session shown
# again as its run was shown live, and continued. Then eglot alone, in
# an Emacs that never loads harness9.el (tests/harness9-plain-test.el): a ruff quick fix through
# `eglot-code-actions' (ruff and the daemon behind rassumfrassum, from PyPI), an instruction
# comment run, and a question answered in the minibuffer.
# Installs Debian's emacs-nox and elpa-eglot when missing. HARNESS9_DAEMON overrides the daemon.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

has_eglot() { command -v emacs >/dev/null && emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1; }
if ! has_eglot; then
  export DEBIAN_FRONTEND=noninteractive
  pkgs="emacs-nox elpa-eglot"
  "$repo/scripts/apt.sh" $pkgs
fi
daemon="${HARNESS9_DAEMON:-$repo/.venv/bin/harness9}"
[ -x "$daemon" ] || { echo "emacs tests: $daemon is missing (run scripts/bootstrap)" >&2; exit 1; }

# shellcheck source=scripts/rass.sh
. "$repo/scripts/rass.sh"  # rass: ruff and the daemon behind one connection

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
echo "emacs tests: $(emacs --version | head -1)" >&2
start=$(date +%s%N)
# Every file must byte-compile without a warning (compiled in a copy: no .elc in the tree).
sources=(harness9-markdown-inline.el harness9-markdown-table.el harness9-markdown.el harness9.el
         harness9-sessions.el)
for source in "${sources[@]}"; do cp "$here/$source" "$home/"; done
HOME="$home" emacs --batch -L "$home" --eval '(setq byte-compile-error-on-warn t)' \
  -f batch-byte-compile "${sources[@]/#/$home/}" 2>&1 | grep -v '^Loading /etc/emacs' >&2 || true
for source in "${sources[@]}"; do
  [ -f "$home/${source%.el}.elc" ] || { echo "emacs tests: $source does not byte-compile cleanly" >&2; exit 1; }
done
HOME="$home" H9_DAEMON="$daemon" H9_PYTHON="$repo/.venv/bin/python" timeout -k 5 180 emacs --batch \
  -L "$here" -L "$here/tests" -l harness9-test -l harness9-keys-test -l harness9-steer-test \
  -l harness9-problems-test -l harness9-edit-test -l harness9-rows-test -l harness9-markdown-test \
  -l harness9-theme-test -l harness9-subagents-test -l harness9-sessions-test \
  -f ert-run-tests-batch-and-exit </dev/null
# eglot alone, in an Emacs that never loads harness9.el: the daemon as any language server.
HOME="$home" H9_DAEMON="$daemon" H9_RUFF="$repo/.venv/bin/ruff" H9_RASS="$(rass)" \
  H9_PYTHON="$repo/.venv/bin/python" timeout -k 5 120 emacs --batch \
  -L "$here/tests" -l harness9-plain-test -f ert-run-tests-batch-and-exit </dev/null
end=$(date +%s%N)
echo "emacs tests: passed in $(((end - start) / 1000000)) ms" >&2
