# `pypi_tool FOLDER SPEC MARKER`: a test tool from PyPI (SPEC, e.g. `basedpyright==1.40.2`)
# installed under .venv/FOLDER on first use, apart from harness9's own packages; prints that
# folder. MARKER: a file below it that is there once it is installed. Sourced; the caller sets
# `repo`.
pypi_tool() {
  local target="$repo/.venv/$1"
  if [ ! -e "$target/$3" ]; then
    "$repo/.venv/bin/python" -m pip install -q --target "$target" "$2" >&2
  fi
  echo "$target"
}
