#!/usr/bin/env bash
# A screenshot of the chat in a real terminal: Neovim runs in tmux (120x32) against the real daemon
# with a scripted model; the pane, with its colours, is captured (tmux capture-pane -e), turned
# into HTML (rich) and photographed by headless Chromium. Writes chat.ansi, chat.html, chat.png
# (and plan.*: a run with its plan, a message sent into it and a queued prompt; markdown.*: an
# answer's headings and table in the run buffer and the chat; subagents.*: a child agent's rows
# under its task; tasks.*: the background tasks' list; plain.*: Neovim without the plugin,
# a ruff problem fixed through the "Fix with harness9" code action) to $1 and fails when the
# screen lacks what it should show. Skipped without tmux or chromium.
# Usage: tests/screenshot.sh DIR NVIM DAEMON
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$1" nvim="$2" daemon="$3"
for tool in tmux chromium; do
  command -v "$tool" >/dev/null || { echo "nvim screenshot: skipped: no $tool" >&2; exit 0; }
done
mkdir -p "$out"
tmp="$(mktemp -d)"
session="harness9-shot-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws" "$tmp/xdg"
printf 'import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n' >"$tmp/ws/test_calc.py"
# shot NAME LUA REPLAY WANT…: runs tests/LUA in the pane (tmux gives it its server's environment,
# not this one's: what the daemon needs is passed explicitly), checks the screen shows each WANT, and
# writes NAME.ansi, NAME.html and NAME.png.
shot() {
  local name="$1" lua="$2" replay="$3"
  shift 3
  rm -f "$tmp/ready"
  printf 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n' >"$tmp/ws/calc.py"
  local plugin=(--cmd "set rtp^=$here")
  case "$lua" in screenshot_plain*) plugin=() ;; esac # Neovim's own LSP client alone
  tmux new-session -d -s "$session" -x 120 -y 32 \
    env HARNESS9_RESIDENT="${HARNESS9_RESIDENT:-0}" H9_DAEMON="$daemon" H9_REPLAY="$here/tests/$replay" H9_WORKSPACE="$tmp/ws" H9_RUFF="$repo/.venv/bin/ruff" \
    H9_READY="$tmp/ready" XDG_STATE_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/xdg" XDG_DATA_HOME="$tmp/xdg" \
    TERM=tmux-256color "$nvim" -u NONE -i NONE -n "${plugin[@]}" -c "luafile $here/tests/$lua"
  for _ in $(seq 300); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
  [ -f "$tmp/ready" ] || { echo "nvim screenshot: the $name scene did not finish" >&2; tmux capture-pane -p -t "$session" >&2; exit 1; }
  tmux capture-pane -p -e -t "$session" >"$out/$name.ansi"
  local text want
  text="$(tmux capture-pane -p -t "$session")"
  tmux kill-session -t "$session"
  for want in "$@"; do
    grep -qF -- "$want" <<<"$text" || { echo "nvim screenshot: the $name screen lacks: $want" >&2; echo "$text" >&2; exit 1; }
  done
  "$repo/.venv/bin/python" - "$out" "$name" <<'PY'
import sys
from pathlib import Path
from rich.console import Console
from rich.terminal_theme import MONOKAI
from rich.text import Text
out, name = Path(sys.argv[1]), sys.argv[2]
console = Console(record=True, width=120, force_terminal=True, color_system="truecolor", file=open("/dev/null", "w"))
console.print(Text.from_ansi((out / f"{name}.ansi").read_text()), end="")
html = console.export_html(theme=MONOKAI, inline_styles=True, code_format=(
    "<html><body style='margin:0;background:{background};color:{foreground}'>"
    "<pre style='margin:0;padding:6px;font:14px/1.25 \"DejaVu Sans Mono\",monospace'>{code}</pre></body></html>"))
(out / f"{name}.html").write_text(html)
PY
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1030,610 \
    --screenshot="$out/$name.png" "file://$out/$name.html" >/dev/null 2>&1
  echo "nvim screenshot: $out/$name.png" >&2
}

# The file with the agent's edit beside the chat's rows in English.
shot chat screenshot.lua replay-screenshot.json "return a + b" "You" "✗ ran \`python3 -m unittest" "exit 1" \
  "read calc.py" "edited calc.py" "── done · 3 turns · 3 tool calls" \
  "add subtracted; it now adds:" "The test passes, no other change." # the markdown's marks concealed
# A run with its plan, a message sent into it while it ran, and a prompt queued behind it.
shot plan screenshot_plan.lua replay-screenshot-plan.json "Plan · 1 of 3 done" "[x] Run the tests to see what fails" \
  "[>] Fix add in calc.py" "↪ You: and add a line about it to the README" "(queued · next"
# An answer's headings (their marks hidden) and a pipe table (in columns, its marks taken out) in
# the run buffer (left) and the chat (right).
shot markdown screenshot_markdown.lua replay-screenshot-markdown.json "Test report" "Results" \
  " Test             │   Time │ Result" "──────────────────┼────────┼────────" \
  " test_add         │ 0.4 ms │ passed" " test_div_by_zero │  1.1 s │ passed"
# A task's child agent: its rows indented under the task's row, which names the agent; its text
# apart from the parent's answer (the fake LLM as the model: the replay file is not read).
shot subagents screenshot_subagents.lua replay-screenshot.json "✓ explore agent: find the tests of add" \
  "      ✓ read test_calc.py" "is tested in test_calc.py" "The explore agent found it:"
# Background tasks: one done with its changes, one still running, while calc.py has the user's
# unsaved lines. The two were asked for at once: each is named by the daemon's title of it.
shot tasks screenshot_tasks.lua replay-screenshot-tasks.json "<CR> review · a apply · d discard" \
  "● running    1 file +7 −0  Add a test for mul" "✓ completed  1 file +1 −1  Fix add in calc.py: it subtracts" \
  "    calc.py" "def div(a, b):"
# Neovim without the plugin: ruff's problem fixed by the "Fix with harness9" code action, the run's
# transcript opened beside the file, the closing message.
shot plain screenshot_plain.lua replay-plainfix.json "return sum(item for item in items)" \
  "> Fix this problem in total.py" "edit_file: total.py" "harness9 (completed): Fixed:"
