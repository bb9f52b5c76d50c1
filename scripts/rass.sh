# rassumfrassum (PyPI: an LSP multiplexer) puts ruff and the daemon behind one connection, for
# editors that run one language server per file (eglot, Kate). Sourced; the caller sets `repo`.
# `rass` installs it under .venv/rassumfrassum on first use and prints that folder (PYTHONPATH).
rass_version="0.3.5"
rass() {
  local target="$repo/.venv/rassumfrassum"
  if [ ! -f "$target/rassumfrassum/main.py" ]; then
    "$repo/.venv/bin/python" -m pip install -q --target "$target" "rassumfrassum==$rass_version" >&2
  fi
  echo "$target"
}
