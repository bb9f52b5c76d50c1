#!/usr/bin/env bash
# A screenshot of the chat in a real terminal: Neovim runs in tmux (120x32) against the real daemon
# with a scripted model; the pane, with its colours, is captured (tmux capture-pane -e), turned
# into HTML (rich) and photographed by headless Chromium. Writes chat.ansi, chat.html, chat.png
# to $1 and fails when the screen lacks what it should show. Skipped without tmux or chromium.
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
printf 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n' >"$tmp/ws/calc.py"
printf 'import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n' >"$tmp/ws/test_calc.py"
tmux new-session -d -s "$session" -x 120 -y 32 \
  env H9_DAEMON="$daemon" H9_REPLAY="$here/tests/replay-screenshot.json" H9_WORKSPACE="$tmp/ws" \
  H9_READY="$tmp/ready" XDG_STATE_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/xdg" XDG_DATA_HOME="$tmp/xdg" \
  TERM=tmux-256color "$nvim" -u NONE -i NONE -n --cmd "set rtp^=$here" -c "luafile $here/tests/screenshot.lua"
for _ in $(seq 300); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
[ -f "$tmp/ready" ] || { echo "nvim screenshot: the chat did not finish" >&2; tmux capture-pane -p -t "$session" >&2; exit 1; }
tmux capture-pane -p -e -t "$session" >"$out/chat.ansi"
# What the screen must show: the file with the agent's edit, the chat's rows in English.
text="$(tmux capture-pane -p -t "$session")"
for want in "return a + b" "You" "ran \`python3 -m unittest" "exit 1" "read calc.py" "edited calc.py" \
  "── done · 3 turns · 3 tool calls"; do
  grep -qF -- "$want" <<<"$text" || { echo "nvim screenshot: the screen lacks: $want" >&2; echo "$text" >&2; exit 1; }
done
"$repo/.venv/bin/python" - "$out" <<'PY'
import sys
from pathlib import Path
from rich.console import Console
from rich.terminal_theme import MONOKAI
from rich.text import Text
out = Path(sys.argv[1])
console = Console(record=True, width=120, force_terminal=True, color_system="truecolor", file=open("/dev/null", "w"))
console.print(Text.from_ansi((out / "chat.ansi").read_text()), end="")
html = console.export_html(theme=MONOKAI, inline_styles=True, code_format=(
    "<html><body style='margin:0;background:{background};color:{foreground}'>"
    "<pre style='margin:0;padding:6px;font:14px/1.25 \"DejaVu Sans Mono\",monospace'>{code}</pre></body></html>"))
(out / "chat.html").write_text(html)
PY
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1030,610 \
  --screenshot="$out/chat.png" "file://$out/chat.html" >/dev/null 2>&1
echo "nvim screenshot: $out/chat.png" >&2
