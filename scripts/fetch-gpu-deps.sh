#!/usr/bin/env bash
# Prepares .deps/ (git-ignored): the build dependencies the lent GPU machine lacks, unpacked from Debian packages so
# they can travel with the working tree (the device tool's `carry: [".deps"]`). Today that is only CLI11, which is
# header-only; fmt, nlohmann-json and Catch2 3.4 are installed there. Run it once on the Debian development machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/download
(cd .deps/download && apt-get download libcli11-dev)
for deb in .deps/download/*.deb; do dpkg -x "$deb" .deps/root; done
echo "ready: .deps/root/usr (scripts/gpu-check.sh finds it)"
