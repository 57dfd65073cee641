#!/usr/bin/env bash
# Installs the given Debian packages that are not installed yet (apt-get, as
# root or through sudo). Used by setup.sh, fuzz.sh and bench.sh.
#   scripts/install-deps.sh PACKAGE...
set -euo pipefail
missing=""
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
