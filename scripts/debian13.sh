#!/bin/sh
# Builds the project against Debian 13's GStreamer (1.26) inside a Debian 13
# (trixie) root and runs its CPU suites there: scripts/debian-root.sh trixie,
# which says more. With DEBIAN13_ROOT_ONLY=1 it only makes (or checks) the
# root.
set -eu
cd "$(dirname "$0")/.."
if [ "${DEBIAN13_ROOT_ONLY:-0}" = 1 ]; then
  exec ./scripts/debian-root.sh --root-only trixie
fi
exec ./scripts/debian-root.sh trixie
