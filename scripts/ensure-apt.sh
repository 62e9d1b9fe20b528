#!/usr/bin/env bash
# Make sure the Debian packages a make target needs are installed:
#
#   scripts/ensure-apt.sh chromium fonts-dejavu-core
#
# Nothing happens when they are all there. Run as root, the missing ones are installed with apt-get
# (a fresh machine or a CI container); otherwise the script stops with status 1 and prints the one
# command that installs them, so that `make test` never starts a suite that cannot pass.
# Without dpkg (not Debian: macOS, Fedora …) a package counts as installed when a command of its
# name is on the PATH (wrk, chromium); packages without a command of their own (fonts) are left to
# the system's own package manager.
set -euo pipefail

missing=()
for package in "$@"; do
  if command -v dpkg-query >/dev/null 2>&1; then
    status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
  elif [[ "$package" != fonts-* ]] && ! command -v "$package" >/dev/null 2>&1; then
    missing+=("$package")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing: ${missing[*]}. Install them with this system's package manager, then run make again." >&2
  exit 1
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "Missing Debian packages: ${missing[*]}. Install them once, then run make again:" >&2
  echo >&2
  echo "    sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  echo >&2
  exit 1
fi
echo "Installing ${missing[*]} with apt-get …"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
