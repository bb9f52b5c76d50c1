#!/usr/bin/env bash
# Tests of the VS Code extension: the protocol's generated types up to date, type check, unit
# tests, bundle and .vsix package, then the end-to-end test in a real VS Code (code-server in
# headless Chromium) against the real daemon.
#
# Installs what it needs (npm packages, Debian's chromium and ripgrep, a compiler for
# code-server's native modules) and caches code-server outside the repo, under
# $HARNESS9_CI_CACHE (default /var/cache/harness9-ci). Idempotent: a second run reuses it all.
# `test.sh build` stops before the end-to-end test, having installed what it needs; `test.sh e2e`
# runs only the end-to-end test, against what `build` left (scripts/test runs them apart, the
# build beside the Python tests). HARNESS9_SKIP_E2E=1 is `build`. E2E_ONLY=pattern runs only the
# end-to-end tests whose name matches (node's --test-name-pattern), e.g. E2E_ONLY="models and commands".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${HARNESS9_CI_CACHE:-/var/cache/harness9-ci}"
cs_version="4.100.3"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

log() { echo "[vscode $(date +%T)] $*" >&2; }

# npm ci only when the lockfile changed since the last install.
install_node_modules() {
  local stamp="node_modules/.harness9-lock"
  local want
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "npm ci"
    npm ci --no-audit --no-fund
    echo "$want" > "$stamp"
  fi
}

# Debian packages the end-to-end test needs; apt only runs when one is missing.
install_debian_packages() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v rg >/dev/null || missing+=(ripgrep)
  command -v g++ >/dev/null && command -v make >/dev/null || missing+=(build-essential)
  command -v python3 >/dev/null || missing+=(python3)
  if [ "${#missing[@]}" -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    "$root/scripts/apt.sh" --no-install-recommends "${missing[@]}"
  fi
}

# code-server from the npm registry, without its install scripts (they download binaries from
# elsewhere): only the native modules the server needs are compiled, and ripgrep is Debian's.
install_code_server() {
  local dir="$cache/code-server-$cs_version"
  if [ -f "$dir/.complete" ]; then
    echo "$dir/node_modules/code-server"
    return
  fi
  log "installing code-server $cs_version into $dir"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  (
    cd "$dir.tmp"
    echo '{"private": true}' > package.json
    npm install --ignore-scripts --omit=dev --no-audit --no-fund "code-server@$cs_version" >&2
    npm_config_build_from_source=true npm rebuild argon2 >&2
    cd node_modules/code-server/lib/vscode
    npm install --ignore-scripts --omit=dev --no-audit --no-fund >&2
    JOBS=max npm_config_yes=true npm rebuild @vscode/spdlog native-watchdog node-pty @vscode/deviceid >&2
    ln -sfn node_modules node_modules.asar
    ln -sfn code-linux.sh bin/remote-cli/code-server
    ln -sfn browser-linux.sh bin/helpers/browser.sh
    mkdir -p node_modules/@vscode/ripgrep/bin
    cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  )
  rm -rf "$dir" && mv "$dir.tmp" "$dir" && touch "$dir/.complete"
  echo "$dir/node_modules/code-server"
}

# The TypeScript that code-server's built-in TypeScript and JavaScript support runs (its
# extensions' shared node_modules, left out above with the install scripts), for the test of the
# editor's problems and language features. Its version is the one code-server pins.
install_code_server_typescript() {
  local extensions="$1/lib/vscode/extensions"
  if [ ! -f "$extensions/node_modules/typescript/lib/tsserver.js" ]; then
    log "installing the TypeScript of code-server's extensions"
    (cd "$extensions" && npm install --ignore-scripts --omit=dev --no-audit --no-fund >&2)
  fi
}

# The protocol's TypeScript types (src/protocol.generated.ts) are generated from
# docs/protocol.schema.json: regenerated into a temporary file, they must be the checked-in ones.
check_protocol_types() {
  local fresh
  fresh="$(mktemp "${TMPDIR:-/tmp}/protocol.generated.XXXXXX.ts")"
  node scripts/protocol-types.mjs --target "$fresh" 2>/dev/null
  if ! diff -u src/protocol.generated.ts "$fresh" >&2; then
    rm -f "$fresh"
    log "src/protocol.generated.ts is not what docs/protocol.schema.json gives: run \`npm run protocol\` in editors/vscode and commit it"
    exit 1
  fi
  rm -f "$fresh"
}

stage="${1:-all}"
[ "${HARNESS9_SKIP_E2E:-}" = "1" ] && stage=build
case "$stage" in all | build | e2e) ;; *) echo "usage: test.sh [build|e2e]" >&2; exit 2 ;; esac
cd "$here"
start=$SECONDS
if [ "$stage" != e2e ]; then
  install_node_modules
  log "protocol types, type check, unit tests"
  check_protocol_types
  npm test
  log "bundle and package"
  npm run build
  npm run bundle-daemon
  log "the bundled daemon under each Python found"
  npm run test-bundle
  npm run package >/dev/null
  ls -l dist/harness9.vsix >&2
  install_debian_packages
  code_server="$(install_code_server)"
  install_code_server_typescript "$code_server"
fi
if [ "$stage" = build ]; then
  log "built in $((SECONDS - start)) s; the end-to-end test is next (test.sh e2e)"
  exit 0
fi
if [ ! -x "$root/.venv/bin/harness9" ]; then
  log "no daemon at $root/.venv/bin/harness9: run scripts/bootstrap first"
  exit 1
fi
[ -f dist/harness9.vsix ] || { log "no dist/harness9.vsix: run test.sh build first"; exit 1; }
install_debian_packages
code_server="$(install_code_server)"
install_code_server_typescript "$code_server"
log "end-to-end test in code-server $cs_version (setup took $((SECONDS - start)) s)"
artifacts="${E2E_ARTIFACTS:-${TMPDIR:-/tmp}/harness9-vscode-e2e}"
rm -rf "$artifacts" && mkdir -p "$artifacts"
CODE_SERVER="$code_server/out/node/entry.js" \
  HARNESS9_BIN="$root/.venv/bin/harness9" \
  VSIX="$here/dist/harness9.vsix" \
  E2E_ARTIFACTS="$artifacts" \
  node --test --test-timeout=900000 --test-reporter=spec ${E2E_ONLY:+"--test-name-pattern=$E2E_ONLY"} test/e2e/vscode.e2e.test.mjs
log "done in $((SECONDS - start)) s; screenshots in $artifacts"
