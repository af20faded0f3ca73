#!/usr/bin/env bash
# Install the peer backup tools bench/store-vs-peers compares our store with (restic, borg, casync) from Debian's packages.
# Safe to run again; uses sudo when not root. Neither the tests nor CI need them.
set -euo pipefail
pkgs=(restic borgbackup casync)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "bench-deps: all ${#pkgs[@]} Debian packages present (${pkgs[*]})"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "bench-deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for tool in restic borg casync; do
  command -v "$tool" >/dev/null || { echo "bench-deps: $tool still missing after the install" >&2; exit 1; }
done
echo "bench-deps: installed ${missing[*]}"
