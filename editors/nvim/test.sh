#!/usr/bin/env bash
# Neovim plugin tests: headless Neovim drives a whole scripted run and a cancel against the real
# daemon and checks the run buffer's text. Installs Debian's neovim when missing.
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
unset HARNESS9_PROVIDER HARNESS9_REPLAY HARNESS9_MODEL
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws" "$tmp/xdg"
echo "hello from a.txt" >"$tmp/ws/a.txt"
echo "nvim tests: $("$nvim" --version | head -1)" >&2

run_scenario() {
  local name="$1" start end
  start=$(date +%s%N)
  H9_SCENARIO="$name" H9_DAEMON="$daemon" H9_REPLAY="$here/tests/replay-${name}.json" H9_WORKSPACE="$tmp/ws" \
    XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" XDG_STATE_HOME="$tmp/xdg/state" \
    XDG_CACHE_HOME="$tmp/xdg/cache" \
    timeout -k 5 90 "$nvim" --headless -u NONE -i NONE -n \
      --cmd "set rtp^=$here" -c "luafile $here/tests/headless.lua" </dev/null
  end=$(date +%s%N)
  echo "nvim tests: $name passed in $(((end - start) / 1000000)) ms" >&2
}

[ -n "${H9_ONLY:-}" ] || run_scenario run
run_scenario cancel
run_scenario nodaemon
