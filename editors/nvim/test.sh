#!/usr/bin/env bash
# Neovim plugin tests: headless Neovim drives scripted runs (a whole run, a cancel, approvals asked
# through the plugin and through Neovim's stock handler) against the real daemon and checks the run
# buffer's text and the workspace. Installs Debian's neovim when missing.
# HARNESS9_NVIM=/path/to/nvim runs them with another Neovim build, HARNESS9_DAEMON with another daemon.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
nvim="${HARNESS9_NVIM:-nvim}"

if ! command -v "$nvim" >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q neovim >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q neovim >/dev/null; }
fi
daemon="${HARNESS9_DAEMON:-$repo/.venv/bin/harness9}"
[ -x "$daemon" ] || { echo "nvim tests: $daemon is missing (run scripts/bootstrap)" >&2; exit 1; }

# The tests configure the daemon through init_options, as the README says: not the environment.
unset HARNESS9_PROVIDER HARNESS9_REPLAY HARNESS9_MODEL HARNESS9_APPROVALS
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/xdg"
echo "nvim tests: $("$nvim" --version | head -1)" >&2

run_scenario() {
  local name="$1" ws="$tmp/ws-$1" start end
  mkdir -p "$ws" # a fresh workspace each: some scenarios change it
  echo "hello from a.txt" >"$ws/a.txt"
  start=$(date +%s%N)
  H9_SCENARIO="$name" H9_DAEMON="$daemon" H9_REPLAY="$here/tests/replay-${name}.json" H9_WORKSPACE="$ws" \
    XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" XDG_STATE_HOME="$tmp/xdg/state" \
    XDG_CACHE_HOME="$tmp/xdg/cache" \
    timeout -k 5 90 "$nvim" --headless -u NONE -i NONE -n \
      --cmd "set rtp^=$here" -c "luafile $here/tests/headless.lua" </dev/null
  end=$(date +%s%N)
  echo "nvim tests: $name passed in $(((end - start) / 1000000)) ms" >&2
}

if [ -n "${H9_ONLY:-}" ]; then # H9_ONLY="approve stock" runs those scenarios only
  for name in $H9_ONLY; do run_scenario "$name"; done
  exit 0
fi
for name in run cancel nodaemon approve approvecancel stock restore applyedit; do
  run_scenario "$name"
done
