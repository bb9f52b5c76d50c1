#!/usr/bin/env bash
# What the Kate tests need, installed from Debian when missing and this machine can (root with
# apt-get): kate, xvfb, xauth, xdotool, imagemagick (screenshots), libglib2.0-bin (gdbus) and
# dbus-daemon. scripts/test runs it beside the Python tests (it mostly waits on the network);
# editors/kate/test.sh runs it too, for a run of its own.
set -euo pipefail

# The programs the scenario needs, and the Debian packages that hold them.
needs="kate:kate xvfb-run:xvfb xauth:xauth xdotool:xdotool import:imagemagick gdbus:libglib2.0-bin"
needs="$needs dbus-run-session:dbus-daemon"
missing=""
for need in $needs; do
  command -v "${need%%:*}" >/dev/null || missing="$missing ${need#*:}"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "kate tests: missing$missing (Debian packages; install them as root)" >&2
    exit 1
  fi
  echo "kate tests: installing$missing …" >&2
  # shellcheck disable=SC2086
  "$(dirname "$0")/../../scripts/apt.sh" --no-install-recommends $missing
fi
