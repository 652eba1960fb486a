#!/bin/sh
# Build the sandbox image's root filesystem without a container registry.
#
#   build-rootfs.sh ROOTFS_DIR MIRROR PACKAGES_FILE
#
# Debian's debootstrap (variant minbase), then the packages listed in PACKAGES_FILE
# installed by apt inside the new root (apt resolves virtual packages, such as the ones
# Debian's npm depends on; debootstrap's --include does not), then trimmed of caches and
# documentation. Needs root. `lsp-agent sandbox build` runs this, tars ROOTFS_DIR and
# `docker import`s it. Changing this script changes the image's content version (its tag).
set -eu

rootfs=$1
mirror=$2
packages=$(grep -v '^[[:space:]]*#' "$3" | tr -s '[:space:]' ' ')

debootstrap --variant=minbase bookworm "$rootfs" "$mirror"

# apt inside the new root, from the same mirror; no service may start while installing.
printf 'deb %s bookworm main\n' "$mirror" > "$rootfs/etc/apt/sources.list"
printf '#!/bin/sh\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"
chmod 755 "$rootfs/usr/sbin/policy-rc.d"
mount -t proc proc "$rootfs/proc"
trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
in_root() {
    chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"
}
in_root apt-get update -q
# shellcheck disable=SC2086 # one word per package
in_root apt-get install -y -q --no-install-recommends $packages
in_root apt-get clean
umount "$rootfs/proc"
trap - EXIT
rm -f "$rootfs/usr/sbin/policy-rc.d"

# Project code must not find the ~870 packages Debian installs for npm (/usr/share/nodejs,
# on Debian node's built-in search path): the sandbox driver preloads this file into every
# Node process of a check (NODE_OPTIONS); Debian's own tools (npm) keep their packages.
# The Dockerfile writes the same line.
mkdir -p "$rootfs/usr/lib/lsp-agent"
printf '%s\n' '"use strict";const M=require("module"),fs=require("fs"),d=/^\/usr\/(share|lib)\/([^/]+\/)?nodejs(\/|$)/;let m="";try{m=fs.realpathSync(process.argv[1]||".")}catch(e){}if(!d.test(m)){const l=M._resolveLookupPaths;M._resolveLookupPaths=function(r,p){const o=l.call(this,r,p);return Array.isArray(o)?o.filter((x)=>!d.test(x)):o}}' > "$rootfs/usr/lib/lsp-agent/node-hermetic.js"

# Trim what a throwaway check environment never reads.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* \
       "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/* \
       "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
       "$rootfs"/usr/share/locale/* "$rootfs"/debootstrap
: > "$rootfs/etc/resolv.conf"
# Mount point for the repository (read-only at run time).
mkdir -p "$rootfs"/workspace
chmod 1777 "$rootfs"/tmp
