#!/usr/bin/env bash
# The Kate scenario, run by ../test.sh inside Xvfb and a D-Bus session of its own, with Kate's
# configuration and the workspace in H9_TMP. Kate is driven as a person would: xdotool clicks and
# keys (the plugin's actions are not on D-Bus), and Kate's D-Bus interface where it has the
# action (open a file, place the cursor, reload, save). What Kate and the servers said to each
# other is read from the multiplexer's log of each project (server-PROJECT.log); every wait polls
# with a deadline. Screenshots of each step go to H9_ARTIFACTS.
set -euo pipefail
tmp="$H9_TMP"
art="$H9_ARTIFACTS"
ws="$tmp/ws"
deadline_s=30 # what any one wait may take before the scenario fails

fail() {
  echo "kate tests: $*" >&2
  import -window root "$art/failed.png" 2>/dev/null || true
  exit 1
}

# wait_for WHAT COMMAND…: poll COMMAND until it succeeds; fail naming WHAT after the deadline.
wait_for() {
  local what="$1" until=$((SECONDS + deadline_s))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$until" ] || fail "timed out after ${deadline_s}s waiting for $what"
    sleep 0.1
  done
}

shot() { import -window root "$art/$1.png"; }

# logged PROJECT TEXT…: the multiplexer of PROJECT logged a line holding each TEXT.
logged() {
  local lines="$tmp/server-$1.log" text
  shift
  [ -f "$lines" ] || return 1
  lines="$(cat "$lines")"
  for text in "$@"; do lines="$(grep -F -- "$text" <<<"$lines")" || return 1; done
}

# drawn X Y W H: the screen's rectangle holds more than a plain background (text is drawn there).
drawn() {
  local darkest
  darkest="$(import -window root -crop "${3}x${4}+${1}+${2}" +repage -format '%[fx:minima]' info:)"
  awk -v d="$darkest" 'BEGIN { exit !(d < 0.5) }'
}

# has_text FILE TEXT: FILE holds exactly TEXT (written by printf, so "\n" ends lines).
has_text() { [ -f "$1" ] && [ "$(cat "$1"; echo .)" = "$(printf "$2"; echo .)" ]; }

# Kate's D-Bus service, and its calls: CALL OBJECT METHOD ARGS…
kate_bus() {
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.ListNames | grep -o "org\.kde\.kate-[0-9]*" | head -1
}
call() {
  local object="$1" method="$2"
  shift 2
  gdbus call --session --timeout 20 --dest "$bus" --object-path "$object" --method "$method" "$@" >/dev/null
}
open_file() { call /MainApplication org.kde.Kate.Application.openUrl "file://$1" ""; }
cursor() { call /MainApplication org.kde.Kate.Application.setCursor "$1" "$2"; }
action() { call /kate/MainWindow_1 org.kde.KMainWindow.activateAction "$1"; }

# The visible window of Kate titled exactly TITLE (menus and popups are titled "Kate").
window_titled() {
  local id
  for id in $(xdotool search --onlyvisible --class kate 2>/dev/null); do
    [ "$(xdotool getwindowname "$id")" = "$1" ] && { echo "$id"; return 0; }
  done
  return 1
}
main_window() { xdotool search --onlyvisible --class kate 2>/dev/null | while read -r id; do
  case "$(xdotool getwindowname "$id")" in *" — Kate") echo "$id"; break ;; esac; done | grep .; }
sized() { xdotool getwindowgeometry "$1" | grep -q "Geometry: 1280x800"; }
click() { xdotool mousemove --sync "$1" "$2" click --repeat "${3:-1}" --delay 120 1; }

# Kate, its files (the last one shown), its window as large as the screen.
cd "$ws"
printf 'def total(items):\n    return sum(item for item in itemz)\n' >fix/total.py
printf '# harness9: add mean(items) below total, built on it\ndef total(items):\n    return sum(items)\n' \
  >instruction/stats.py
printf '# harness9: count the Python files into count.txt\ndef total(items):\n    return sum(items)\n' \
  >ask/total.py
kate -n "$ws/ask/total.py" "$ws/instruction/stats.py" "$ws/fix/total.py" >"$tmp/kate.log" 2>&1 &
kate_pid=$!
trap 'kill "$kate_pid" 2>/dev/null; wait "$kate_pid" 2>/dev/null || true' EXIT
wait_for "Kate on D-Bus" kate_bus
bus="$(kate_bus)"
wait_for "Kate's window" main_window
window="$(main_window)"
xdotool windowsize "$window" 1280 800
wait_for "Kate's window at 1280x800" sized "$window"
xdotool windowfocus --sync "$window"
# Kate starts a project's server when one of its files is first shown: one at a time, so that no
# run below shares the machine with a daemon starting.
for file in instruction/stats.py ask/total.py fix/total.py; do
  open_file "$ws/$file"
  wait_for "${file%%/*}'s file opened in the daemon" logged "${file%%/*}" "[harness9] --> textDocument/didOpen"
done

# 1. The quick fix. ruff's problem reaches Kate through the multiplexer; Kate's Diagnostics tab
# (the LSP tool view) lists it, and a double click asks for its code actions with the problem,
# listed under it: "Fix with harness9: …" among ruff's. Its double click starts the run.
wait_for "ruff's problem" logged fix '<-- textDocument/publishDiagnostics' '"code": "F821"'
click 253 788 # the LSP tool view's button
wait_for "the problem in the Diagnostics tab" drawn 83 626 300 12
click 200 632 2
wait_for "the quick fix offered" logged fix '"title": "Fix with harness9: Undefined name `itemz`"'
wait_for "the code actions under the problem" drawn 103 677 360 12
shot 1-quick-fix
click 300 683 2
wait_for "harness9.fix run" logged fix '"command": "harness9.fix"'
wait_for "the fix's closing message" logged fix '"message": "harness9 (completed): Fixed: `itemz` was a typo of `items`. — the whole run: '
wait_for "the fix on disk" has_text fix/total.py 'def total(items):\n    return sum(item for item in items)\n'

# runs_instruction PROJECT FILE TITLE: Code Action (Alt+Return) on FILE's first line, the
# instruction comment's action picked from the menu (harness9's come after ruff's: the last).
runs_instruction() {
  open_file "$ws/$1/$2"
  wait_for "$1's file opened in the daemon" logged "$1" "[harness9] --> textDocument/didOpen"
  click 600 500 # the editor has the keys
  cursor 0 3
  xdotool key alt+Return
  wait_for "the action offered" logged "$1" "\"title\": \"$3\""
  wait_for "the code action menu" window_titled Kate
  xdotool key Up
  shot "2-$1"
  xdotool key Return
  wait_for "harness9.run of the instruction" logged "$1" '"arguments": [{"instructionLine": 0, "uri": "file://'"$ws/$1/$2"'"}], "command": "harness9.run"'
}

# 2. The instruction comment: the run adds mean() and removes the comment.
runs_instruction instruction stats.py "harness9: add mean(items) below total, built on it"
wait_for "the instruction's closing message" logged instruction '"message": "harness9 (completed): Added mean(items), built on total. — the whole run: '
wait_for "mean() without the comment on disk" has_text instruction/stats.py \
  'def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n'

# 3. A question: Kate 22.12 has no window/showMessageRequest (it answers with an error), so the
# command is declined, not run; the model and the transcript are told why.
runs_instruction ask total.py "harness9: count the Python files into count.txt"
wait_for "the question sent to Kate" logged ask '<-s window/showMessageRequest'
wait_for "the ask run's closing message" logged ask '"message": "harness9 (completed): I could not count them: running the command was declined, as this editor cannot ask. — the whole run: '
[ ! -e ask/count.txt ] || fail "the declined command ran: ask/count.txt exists"
head -n 1 ask/total.py | grep -qF "# harness9: count" \
  || fail "the instruction comment of a run whose command was declined was removed"
grep -qF "not asked: this editor cannot show questions" "$tmp"/state/transcripts/*.md \
  || fail "no transcript says why the command was declined"

# 4. Kate 22.12 announces no workspace/applyEdit: the runs wrote the files, and Kate reloads them
# (File → Reload All; Kate asks about the files it saw change, and Reload is the default).
# Then a line typed into the fixed file, saved: the file holds the fix and the line.
action file_reload_all &
reloading=$!
reloaded() { ! kill -0 "$reloading" 2>/dev/null || window_titled "Documents Modified on Disk — Kate" >/dev/null; }
wait_for "the reload (or Kate's question about it)" reloaded
if dialog="$(window_titled "Documents Modified on Disk — Kate")"; then
  shot 3-reload
  xdotool windowfocus --sync "$dialog" key Return
fi
wait "$reloading" || fail "File → Reload All failed"
open_file "$ws/fix/total.py"
click 600 400
xdotool key ctrl+End
xdotool type --delay 20 'print(total([1, 2]))'
action file_save_all
wait_for "the saved file" has_text fix/total.py \
  'def total(items):\n    return sum(item for item in items)\nprint(total([1, 2]))\n'
[ "$("$H9_PYTHON" fix/total.py)" = 3 ] || fail "the fixed file does not run"

# 5. The closing messages, as Kate shows window/showMessage: in the Output tool view.
click 30 788
click 600 589
xdotool type --delay 20 "(completed)"
wait_for "the closing messages in the Output tab" drawn 100 600 600 160
shot 4-output
echo "kate tests: a quick fix, an instruction comment and a declined question, all through Kate" >&2
