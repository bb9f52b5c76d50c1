#!/usr/bin/env bash
# The package as a user's client gets it. Builds the sdist from the files git tracks and the wheel
# from that sdist (what uvx and pipx build from a release's sdist, or download as its wheel), then
# runs that wheel with the real tools, as an ACP client starts an agent: `uvx --from WHEEL
# harness9` and `pipx run --spec WHEEL harness9`, each checked by acp_handshake.py (`--version`,
# then `acp` sessions: without an API key, and with the offline replay provider).
#
# uv, pipx and build come from PyPI (tools.txt) into a throwaway venv. Every home, cache, tool
# and state folder is a temporary one and API keys are dropped, so nothing of the user's is read
# or written. One line per check; exit code 0 when all passed, else the failing step's reason and
# the end of its log. Needs PyPI (the runners install the package's dependencies from it).
#
# HARNESS9_PACKAGING_PYTHON: the Python to use (default: python3 on PATH).
# HARNESS9_PACKAGING_KEEP=1: keep the temporary folder (its path is printed) for a look after.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="${HARNESS9_PACKAGING_PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/harness9-packaging.XXXXXX")"
cleanup() {
  if [ "${HARNESS9_PACKAGING_KEEP:-0}" = 1 ]; then
    echo "kept: $work"
  else
    chmod -R u+w "$work" && rm -rf "$work"  # uv's cache holds read-only files
  fi
}
trap cleanup EXIT
steps=0

# step WHAT SECONDS COMMAND…: runs COMMAND with its output in a log of its own and gives up after
# SECONDS; prints "WHAT: ok (N s)", or FAILED with the end of the log, and then exits 1.
step() {
  local what="$1" seconds="$2" started=$SECONDS log
  shift 2
  steps=$((steps + 1))
  log="$work/step-$steps.log"
  if timeout "$seconds" "$@" >"$log" 2>&1; then
    echo "$what: ok ($((SECONDS - started)) s)"
  else
    local status=$?
    [ "$status" = 124 ] && status="124: over $seconds s"
    echo "$what: FAILED (exit $status)"
    tail -n 30 "$log" | sed 's/^/    /'
    exit 1
  fi
}

# fail REASON: the line of a check that did not hold, then exit 1.
fail() {
  echo "FAILED: $*"
  exit 1
}

version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$repo/server/harness9/__init__.py")"
[ -n "$version" ] || fail "no __version__ in server/harness9/__init__.py"

# The files git tracks, as they are now in the working tree, and nothing else (no bytecode, no
# build folder): what a release is made from.
mkdir "$work/source"
step "copy of the git-tracked files" 60 \
  bash -c 'git -C "$1" ls-files -z | tar --null -T - -C "$1" -cf - | tar -xf - -C "$2"' \
  _ "$repo" "$work/source"

# From here on, every folder a tool could read or write is a temporary one, as on a fresh
# machine: homes, caches, tool folders and harness9's state. API keys go (the checks set the
# model themselves); an active venv would be picked by uv instead of the interpreter a user has.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache"
export XDG_DATA_HOME="$work/home/.local/share" XDG_STATE_HOME="$work/home/.local/state"
export UV_CACHE_DIR="$work/uv/cache" UV_TOOL_DIR="$work/uv/tools" UV_TOOL_BIN_DIR="$work/uv/bin"
export UV_PYTHON_INSTALL_DIR="$work/uv/python"
export UV_PYTHON_DOWNLOADS=never  # only PyPI is reached: use an installed Python, never fetch one
export PIPX_HOME="$work/pipx/home" PIPX_BIN_DIR="$work/pipx/bin" PIPX_MAN_DIR="$work/pipx/man"
export HARNESS9_STATE_DIR="$work/state"
unset OPENAI_API_KEY ANTHROPIC_API_KEY VIRTUAL_ENV PYTHONPATH HARNESS9_TEST_PRELOAD_DIR
mkdir -p "$HOME"

tools="$work/tools/bin"
step "uv, pipx and build from PyPI into a throwaway venv" 300 \
  bash -c '"$1" -m venv "$2" && "$2/bin/python" -m pip install -q -r "$3"' \
  _ "$python" "$work/tools" "$here/tools.txt"

# python -m build makes the sdist, then the wheel from the sdist (not from the source folder):
# the wheel that runs below is the one an installer builds from the published sdist.
step "sdist, then the wheel from the sdist (python -m build)" 300 \
  "$tools/python" -m build --outdir "$work/dist" "$work/source"
sdist="$work/dist/harness9-$version.tar.gz"
wheel="$work/dist/harness9-$version-py3-none-any.whl"
[ -f "$sdist" ] || fail "no $(basename "$sdist") in: $(ls "$work/dist")"
[ -f "$wheel" ] || fail "no $(basename "$wheel") in: $(ls "$work/dist")"
contents="$("$tools/python" -m zipfile -l "$wheel")"
for file in harness9/demo/replay.json harness9/demo/sample/pager.py harness9/py.typed \
    harness9/acp/main.py; do
  grep -q "^$file " <<<"$contents" || fail "the wheel built from the sdist has no $file"
done
echo "built: $(basename "$sdist"), $(basename "$wheel") (with the package data)"

# The runners, as a client starts them; acp_handshake.py prints a line per check. Its own time
# limits are per step; this one only stops a runner that hangs past them all. pipx would install
# with uv, found beside it here; `--backend pip` makes it install as a pipx without uv does (pip
# resolving from PyPI on its own), so each runner's installer is tested once.
timeout 1000 "$python" "$here/acp_handshake.py" --label uvx --expect-version "$version" \
  --workdir "$work/checks-uvx" -- "$tools/uvx" --from "$wheel" harness9
timeout 1000 "$python" "$here/acp_handshake.py" --label pipx --expect-version "$version" \
  --workdir "$work/checks-pipx" -- "$tools/pipx" run --backend pip --spec "$wheel" harness9
echo "uvx $("$tools/uv" --version | cut -d' ' -f2), pipx $("$tools/pipx" --version): all checks passed"
