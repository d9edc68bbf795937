#!/usr/bin/env bash
# Installs the Debian packages basalt builds and tests with, when any is missing.
# Sourced by scripts/demo and scripts/test; safe to run repeatedly.
#
# libre2-dev: HyperNode regexMatch patterns are matched in linear time with
# Go's syntax (src/api/hypernode.cc). Besides the compilers and libraries:
# chromium (and a font for it) so the simulation report test really opens the
# report in headless Chromium, and npm so the build can fetch the report's
# charting library (Chart.js) from the npm registry (cmake/chart_asset.cmake). npm comes with Node.js when Node.js is
# installed from its own repository; Debian's `npm` package is installed only
# when there is no `npm` at all.
set -euo pipefail
BASALT_PACKAGES=(cmake ninja-build g++ pkg-config libyaml-cpp-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev
  libfmt-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libssl-dev libgmp-dev libcpp-httplib-dev libboost-dev libre2-dev openssl curl chromium fonts-dejavu-core ccache clang-format
  python3 python3-yaml)  # python3-yaml: the differential test against the Volcano oracle (tests/oracle)
missing=()
for p in "${BASALT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
