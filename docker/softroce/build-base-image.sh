#!/bin/bash
# build-base-image.sh - builds (once) the container base image: a minimal Debian bookworm root file system with the
# packages of base-packages.txt, as a tar that `docker import` turns into the image `rdmakv-base:bookworm`.
#
#   docker/softroce/build-base-image.sh          # prints the cached tar's path; builds it unless cached
#   docker import "$(docker/softroce/build-base-image.sh)" rdmakv-base:bookworm   # on a host with an engine
#
# No image registry is needed: debootstrap (minbase) + apt from the host's Debian mirror, as for the guest image.
# The tar lives in $CACHE/base/<key>/rootfs.tar (CACHE as in build-guest.sh), where <key> hashes base-packages.txt
# and this script's format number; a build works in $CACHE/work/base-<key>.<pid>/ and renames its result into place
# after writing COMPLETE last, so an interrupted build never leaves a tar that looks valid. Builds are serialised
# with flock. The guest job imports it into the guest's Docker engine (run-in-guest.sh exposes the directory).
# Needs root (debootstrap, chroot).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/softroce-lib.sh"

[ "$(id -u)" = 0 ] || softroce_die "build-base-image.sh needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || softroce_die "debootstrap is not installed (build-guest.sh installs it)"

build()
{
    local key=$1 dir=$2 mirror root out t0
    mirror=${RDMAKV_SOFTROCE_MIRROR:-$(host_mirror)}
    WORK="$SOFTROCE_CACHE/work/base-$key.$$"
    trap softroce_cleanup_work EXIT
    trap 'exit 130' INT TERM
    root="$WORK/rootfs"
    out="$WORK/out"
    mkdir -p "$root" "$out"
    t0=$(date +%s)
    softroce_log "base image: debootstrap $SOFTROCE_SUITE (minbase) from $mirror"
    softroce_bootstrap_root "$root" "$mirror"
    # No documentation, manual pages or translations in the image (dpkg skips them from now on).
    cat > "$root/etc/dpkg/dpkg.cfg.d/rdmakv-slim" <<'SLIM'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/lintian/*
SLIM
    softroce_log "base image: installing $(base_packages)"
    mount_chroot "$root"
    # shellcheck disable=SC2046
    if ! { chroot "$root" apt-get update -q &&
           DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q --no-install-recommends \
               $(base_packages); } > "$WORK/apt.log" 2>&1
    then
        tail -30 "$WORK/apt.log" >&2
        softroce_die "installing the base image's packages failed (log above)"
    fi
    chroot "$root" apt-get clean
    chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' > "$out/packages.txt"
    unmount_chroot "$root"
    rm -f "$root/usr/sbin/policy-rc.d"
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/* "$root"/usr/share/doc/* \
           "$root"/usr/share/man/* "$root"/usr/share/locale/*
    # A container's resolver and host name come from the engine.
    : > "$root/etc/resolv.conf"
    tar --numeric-owner --xattrs -C "$root" -cf "$out/rootfs.tar" .
    {
        echo "key=$key"
        echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "suite=$SOFTROCE_SUITE"
        echo "mirror=$mirror"
        echo "packages=$(base_packages)"
        echo "tag=$SOFTROCE_BASE_TAG"
        echo "build_seconds=$(( $(date +%s) - t0 ))"
    } > "$out/manifest.txt"
    touch "$out/COMPLETE"
    mkdir -p "$(dirname "$dir")"
    rm -rf "$dir"
    mv "$out" "$dir"
    softroce_log "TIMING base image build $(( $(date +%s) - t0 ))s, $(du -h "$dir/rootfs.tar" | cut -f1) -> $dir"
}

main()
{
    local key dir old
    key=$(softroce_base_key)
    dir=$(softroce_base_dir)
    mkdir -p "$SOFTROCE_CACHE"
    exec 8> "$SOFTROCE_CACHE/.base-lock"
    flock -w 3600 8 || softroce_die "timed out waiting for another build-base-image.sh to finish"
    for old in "$SOFTROCE_CACHE"/work/base-*/ "$SOFTROCE_CACHE"/base/*/
    do
        [ -d "$old" ] || continue
        old=${old%/}
        [ "$old" = "$dir" ] && continue
        findmnt -rn -o TARGET | grep -q "^$old/" && continue
        softroce_log "removing a stale or interrupted base image build: $old"
        rm -rf --one-file-system "$old"
    done
    if softroce_base_is_complete "$dir"
    then
        softroce_log "base image $key is cached in $dir"
    else
        softroce_log "base image $key is not cached: building it"
        build "$key" "$dir" >&2
    fi
    echo "$dir/rootfs.tar"
}

main "$@"
