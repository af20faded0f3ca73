#!/usr/bin/env bash
# Install the Debian packages the tests need (QEMU micro-VMs, guest image tools, Chromium for the report test).
# Safe to run again; uses sudo when not root. The main job on the process target needs none of them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t pkgs < <(grep -hv '^\s*#' "$here/apt-packages.txt" | sed '/^\s*$/d')
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# The micro-VM image build fetches the guest kernel with `apt-get download`: it needs the package lists.
if ! apt-cache show linux-image-cloud-amd64 >/dev/null 2>&1; then
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} Debian packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
