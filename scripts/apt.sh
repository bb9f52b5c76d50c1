#!/usr/bin/env bash
# `scripts/apt.sh [APT-GET OPTION…] PACKAGE…`: install Debian packages (as root), one installer
# at a time: suites that run side by side wait here for each other instead of failing on dpkg's
# lock. Without `apt-get update` first (quick when the lists are fresh), then with it.
set -uo pipefail
exec 9>/tmp/harness9-apt.lock
flock 9
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "$@" >/dev/null 2>&1 && exit 0
apt-get update -q >/dev/null && apt-get install -y -q "$@" >/dev/null
