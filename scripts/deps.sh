#!/usr/bin/env bash
# Installs the Debian packages basalt builds with, when any is missing.
# Sourced by scripts/demo and scripts/test; safe to run repeatedly.
set -euo pipefail
BASALT_PACKAGES=(cmake ninja-build g++ pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libfmt-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev)
missing=()
for p in "${BASALT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
