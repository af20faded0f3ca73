#!/usr/bin/env bash
# Build the keepstate-soak image without a registry: debootstrap a Debian bookworm base, import it into podman, stage
# the build context (the npm package as `npm pack` makes it, its production node_modules, the nodejs .deb this machine
# runs), build Containerfile. The image holds exactly what the package ships (package.json "files"), nothing else.
#
#   deploy/container/build.sh            # -> localhost/keepstate-soak:<version>
#   STAGE_ONLY=1 deploy/container/build.sh   # only stage the app folder ($WORK/context/app, printed): no root needed;
#                                            # test/deploy/k8s.test.ts plays the CronJobs' commands against it
# Environment: MIRROR [deb.debian.org/debian]  WORK [/var/tmp/keepstate-soak-image]  TAG [localhost/keepstate-soak:<version>]
#              BASE [localhost/keepstate-soak-base:bookworm] (reused when it exists; REBUILD_BASE=1 makes it again)
# Needs (Debian): debootstrap, podman (buildah underneath), apt-get; run as root; `npm run build` done first.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
work=${WORK:-/var/tmp/keepstate-soak-image}
base=${BASE:-localhost/keepstate-soak-base:bookworm}
version=$(node -p "require('$repo/package.json').version")
tag=${TAG:-localhost/keepstate-soak:$version}
log() { echo "build.sh: $*" >&2; }

[[ -x $repo/dist/harness/cli.js ]] || {
  log "dist/harness/cli.js missing: run npm run build first"
  exit 3
}
mkdir -p "$work"

# 1. The build context's app: only what runs (the packed package: no sources, tests or dev dependencies).
ctx=$work/context
rm -rf "$ctx"
mkdir -p "$ctx/app/node_modules"
tgz=$(cd "$repo" && npm pack --ignore-scripts --silent --pack-destination "$work" | tail -n 1)
tar -xzf "$work/$tgz" -C "$ctx/app" --strip-components=1
rm -f "$work/$tgz"
cp -a "$repo/package-lock.json" "$ctx/app/"
# production dependencies as npm resolves them (node_modules may be a symlink: copy the files, not the link)
(cd "$repo" && npm ls --omit=dev --all --parseable) | tail -n +2 | while read -r dir; do
  rel=${dir#"$repo/node_modules/"}
  mkdir -p "$ctx/app/node_modules/$(dirname "$rel")"
  [[ -e $ctx/app/node_modules/$rel ]] || cp -aL "$dir" "$ctx/app/node_modules/$rel"
done
if [[ ${STAGE_ONLY:-0} == 1 ]]; then
  echo "$ctx/app"
  exit 0
fi

# 2. The base: a minimal bookworm root filesystem from the Debian mirror, imported as an image.
if [[ ${REBUILD_BASE:-0} == 1 ]] || ! podman image exists "$base"; then
  # a finished debootstrap (no debootstrap/ folder left) is reused unless REBUILD_BASE=1
  if [[ ${REBUILD_BASE:-0} == 1 || ! -e $work/rootfs/etc/debian_version || -e $work/rootfs/debootstrap ]]; then
    rm -rf "$work/rootfs"
    log "debootstrap bookworm from $mirror (a few minutes)"
    debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log"
  fi
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar --numeric-owner -C "$work/rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$base"
fi

# Node: the files of the nodejs package this machine runs (NodeSource's node_20.x; the installed build is a local
# repack that no repository serves, so its files are copied as dpkg lists them, not downloaded again).
dpkg -L nodejs | while read -r f; do [[ -f $f || -L $f ]] && echo "${f#/}"; done >"$work/nodejs.files"
tar -C / --no-recursion -cf "$ctx/nodejs.tar" -T "$work/nodejs.files"

# 3. The image.
log "building $tag FROM $base"
podman build --isolation=chroot --network=host --build-arg "BASE=$base" -f "$here/Containerfile" -t "$tag" "$ctx"
podman image inspect "$tag" --format '{{.Id}} {{.Size}}'
