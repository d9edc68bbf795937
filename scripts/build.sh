#!/usr/bin/env bash
# Configures and builds basalt into build/ (Release with assertions kept on by BASALT_DCHECK in tests).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/deps.sh"
BUILD_DIR="${BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DBASALT_BUILD_TESTS=ON -DBASALT_BUILD_BENCHMARKS="${BASALT_BUILD_BENCHMARKS:-ON}" >/dev/null
# BASALT_BUILD_TARGET=basalt builds the binary alone (scripts/demo).
cmake --build "$BUILD_DIR" -j "$(nproc)" ${BASALT_BUILD_TARGET:+--target "$BASALT_BUILD_TARGET"}
