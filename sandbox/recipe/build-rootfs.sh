#!/bin/sh
# Build the sandbox image's root filesystem without a container registry.
#
#   build-rootfs.sh ROOTFS_DIR MIRROR PACKAGES_FILE
#
# Debian's debootstrap (variant minbase) plus the packages listed in PACKAGES_FILE,
# then trimmed of caches and documentation. Needs root. `lsp-agent sandbox build`
# runs this, tars ROOTFS_DIR and `docker import`s it. Changing this script changes
# the image's content version (its tag).
set -eu

rootfs=$1
mirror=$2
packages=$(grep -v '^[[:space:]]*#' "$3" | tr -s '[:space:]' ',' | sed 's/^,//; s/,$//')

debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "$mirror"

# Trim what a throwaway check environment never reads.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* \
       "$rootfs"/var/cache/debconf/*-old "$rootfs"/var/log/* \
       "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
       "$rootfs"/usr/share/locale/* "$rootfs"/debootstrap
# Mount point for the repository (read-only at run time).
mkdir -p "$rootfs"/workspace
chmod 1777 "$rootfs"/tmp
