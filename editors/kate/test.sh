#!/usr/bin/env bash
# Kate tests: Kate 22.12's own LSP Client plugin, no plugin of ours, drives the daemon as the
# README's "Helix, Zed, Sublime, Kate, Kakoune" section sets it up (ruff and `harness9 serve`
# behind rassumfrassum, Kate running one server per language), under Xvfb with a scripted model:
# a quick fix of ruff's real problem from the Diagnostics tab, an instruction comment run from
# Code Action (Alt+Return), and a run whose question Kate cannot show (declined, said why); the
# files are reloaded, edited and saved in Kate and checked on disk. tests/drive.sh is the
# scenario, run inside a display and a D-Bus session of its own; screenshots of each step go to
# H9_ARTIFACTS (default: $TMPDIR/harness9-kate-artifacts).
# Installs Debian's kate, xvfb, xdotool, imagemagick and libglib2.0-bin (gdbus) when missing and
# this machine can (root with apt-get). HARNESS9_DAEMON overrides the daemon.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

"$here/install.sh"
daemon="${HARNESS9_DAEMON:-$repo/.venv/bin/harness9}"
[ -x "$daemon" ] || { echo "kate tests: $daemon is missing (run scripts/bootstrap)" >&2; exit 1; }
# shellcheck source=scripts/rass.sh
. "$repo/scripts/rass.sh"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
artifacts="${H9_ARTIFACTS:-${TMPDIR:-/tmp}/harness9-kate-artifacts}"
rm -rf "$artifacts" && mkdir -p "$artifacts"
echo "kate tests: $(QT_QPA_PLATFORM=offscreen kate --version 2>/dev/null | tail -1)" >&2
start=$(date +%s%N)

# A home of its own: Kate's configuration, the daemon's state, the workspace's three projects
# (Kate finds a project's root by its pyproject.toml and starts a server for each).
mkdir -p "$tmp/home/.config/kate/lspclient" "$tmp/runtime" "$tmp/ws"
chmod 700 "$tmp/runtime"
for project in fix instruction ask; do
  mkdir -p "$tmp/ws/$project" && touch "$tmp/ws/$project/pyproject.toml"
done
# Kate starts the server in the project's root: each project plays its own script, and what the
# multiplexer logs (every message both ways) is where the scenario reads what went on the wire.
# rass waits longer than its 3 s for the daemon's start (tests/patient_rass.py).
cat >"$tmp/server" <<EOF
#!/bin/sh
project="\$(basename "\$PWD")"
HARNESS9_REPLAY="$here/tests/replay-\$project.json" PYTHONPATH="$(rass):$here/tests" exec \\
  "$repo/.venv/bin/python" -m rassumfrassum --logic-class patient_rass.PatientLogic \\
  -- "$repo/.venv/bin/ruff" server -- "$daemon" serve 2>>"$tmp/server-\$project.log"
EOF
chmod +x "$tmp/server"
# The LSP Client plugin on; the server's command allowed (Kate asks before it starts one);
# nothing typed in the test completed or closed by the editor.
cat >"$tmp/home/.config/katerc" <<EOF
[General]
Show welcome view for new window=false
Startup Session=none

[Kate Plugins]
lspclientplugin=true

[lspclient]
AllowedServerCommandLines=$tmp/server

[KTextEditor View]
Auto Brackets=false
Auto Completion=false
Word Completion=false
EOF
cat >"$tmp/home/.config/kate/lspclient/settings.json" <<EOF
{
  "servers": {
    "python": {
      "command": ["$tmp/server"],
      "rootIndicationFileNames": ["pyproject.toml"],
      "highlightingModeRegex": "^Python\$",
      "initializationOptions": { "approvals": { "mode": "auto-edit" } }
    }
  }
}
EOF

# A session bus that starts no services: Kate asks for KDE's (the activity manager…), which
# would only fail here, loudly.
cat >"$tmp/bus.conf" <<EOF
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF

status=0
env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share" \
  XDG_CACHE_HOME="$tmp/home/.cache" XDG_RUNTIME_DIR="$tmp/runtime" \
  HARNESS9_PROVIDER=replay HARNESS9_STATE_DIR="$tmp/state" HARNESS9_RESIDENT=0 \
  HARNESS9_LANGUAGE_SERVERS='{}' H9_TMP="$tmp" H9_ARTIFACTS="$artifacts" \
  H9_PYTHON="$repo/.venv/bin/python" \
  timeout -k 5 110 dbus-run-session --config-file="$tmp/bus.conf" -- xvfb-run -a -s "-screen 0 1280x800x24" \
  "$here/tests/drive.sh" </dev/null 2>"$tmp/session.log" || status=$?
grep '^kate tests: ' "$tmp/session.log" >&2 || true
cp "$tmp"/server-*.log "$tmp/session.log" "$artifacts/" 2>/dev/null || true
if [ "$status" != 0 ]; then
  echo "--- the end of the session's output:" >&2
  grep -v '^kate tests: ' "$tmp/session.log" | tail -n 30 >&2
  for log in "$tmp"/server-*.log; do
    [ -f "$log" ] && { echo "--- the end of $log:" >&2; tail -c 3000 "$log" >&2; }
  done
  echo "kate tests: FAILED (exit $status); screenshots in $artifacts" >&2
  exit "$status"
fi
end=$(date +%s%N)
echo "kate tests: passed in $(((end - start) / 1000000)) ms; screenshots in $artifacts" >&2
