# rassumfrassum (PyPI: an LSP multiplexer) puts ruff and the daemon behind one connection, for
# editors that run one language server per file (eglot, Kate). Sourced; the caller sets `repo`.
# `rass` installs it under .venv/rassumfrassum on first use and prints that folder (PYTHONPATH).
# shellcheck source=scripts/pypi_tool.sh
. "$repo/scripts/pypi_tool.sh"
rass_version="0.3.5"
rass() {
  pypi_tool rassumfrassum "rassumfrassum==$rass_version" rassumfrassum/main.py
}
