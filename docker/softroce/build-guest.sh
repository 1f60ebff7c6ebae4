#!/bin/bash
# build-guest.sh - builds (once) the Debian guest image the SoftRoCE tests boot, and checks that qemu can run.
#
#   docker/softroce/build-guest.sh            # install host packages if missing, build the image unless cached
#   RDMAKV_SOFTROCE_CACHE=/some/dir ...       # cache somewhere else (default ${XDG_CACHE_HOME:-~/.cache}/rdmakv-softroce)
#   RDMAKV_SOFTROCE_SKIP_HOST_PACKAGES=1 ...  # do not touch the host's packages (they must already be there)
#
# The image lives in $CACHE/images/<key>/, where <key> hashes guest-packages.txt, guest-init.sh and the release file of
# the host's JDK 22+ that the image carries (softroce-lib.sh, softroce_host_jdk): change any
# and the next run builds a new image; otherwise the run takes a second. An image directory appears only by an
# atomic rename after everything in it was written (and COMPLETE last), so an interrupted or failed build never
# leaves something that looks valid. Builds are serialised by a lock file, so concurrent runs are safe.
#
# Needs root (debootstrap, chroot, mounts), the host's Debian mirror (taken from the host's apt sources) and a JDK 22+
# on the host (Temurin 25 at /usr/lib/jvm/temurin-25-jdk-amd64, or RDMAKV_SOFTROCE_JDK): fails with that message first.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/softroce-lib.sh"

[ "$(id -u)" = 0 ] || softroce_die "build-guest.sh needs root (debootstrap and chroot)"

install_host_packages()
{
    local missing=() p
    for p in $SOFTROCE_HOST_PACKAGES
    do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    softroce_log "installing host packages: ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# Under the lock no other build runs, so any work directory is a killed build's; images of other keys are stale
# (another package list or init) and are removed too unless RDMAKV_SOFTROCE_KEEP_OLD_IMAGES=1.
remove_leftovers()
{
    local key=$1 dir
    for dir in "$SOFTROCE_CACHE"/work/*/
    do
        [ -d "$dir" ] || continue
        dir=${dir%/}
        # the base image's builds (build-base-image.sh) have their own lock and clean up after themselves
        case "$(basename "$dir")" in base-*) continue ;; esac
        if findmnt -rn -o TARGET | grep -q "^$dir/"
        then
            softroce_log "leaving $dir alone: something is still mounted below it"
            continue
        fi
        softroce_log "removing an interrupted build's leftovers: $dir"
        rm -rf --one-file-system "$dir"
    done
    [ "${RDMAKV_SOFTROCE_KEEP_OLD_IMAGES:-0}" = 1 ] && return 0
    for dir in "$SOFTROCE_CACHE"/images/*/
    do
        [ -d "$dir" ] || continue
        dir=${dir%/}
        [ "$(basename "$dir")" = "$key" ] && continue
        softroce_log "removing stale image $(basename "$dir") (set RDMAKV_SOFTROCE_KEEP_OLD_IMAGES=1 to keep)"
        rm -rf --one-file-system "$dir"
    done
}

build_image()
{
    local key=$1 image_dir=$2 mirror root out t0 t
    mirror=${RDMAKV_SOFTROCE_MIRROR:-$(host_mirror)}
    WORK="$SOFTROCE_CACHE/work/$key.$$"
    trap softroce_cleanup_work EXIT
    trap 'exit 130' INT TERM
    root="$WORK/rootfs"
    out="$WORK/out"
    mkdir -p "$root" "$out"
    t0=$(date +%s)

    softroce_log "debootstrap $SOFTROCE_SUITE (minbase) from $mirror"
    softroce_bootstrap_root "$root" "$mirror"
    # A small initramfs with just what finds and mounts the root disk: building the default one (MODULES=most,
    # twice through triggers) takes minutes on a loaded host, and unpacking it slows every emulated boot.
    # Written before initramfs-tools is installed; --force-confold keeps this modules file over the packaged one.
    mkdir -p "$root/etc/initramfs-tools/conf.d"
    echo "MODULES=list" > "$root/etc/initramfs-tools/conf.d/rdmakv.conf"
    printf '%s\n' virtio_pci virtio_blk ext4 > "$root/etc/initramfs-tools/modules"

    softroce_log "installing guest packages: $(softroce_guest_packages)"
    mount_chroot "$root"
    # shellcheck disable=SC2046
    if ! { chroot "$root" apt-get update -q &&
           DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q --no-install-recommends \
               -o Dpkg::Options::=--force-confold $(softroce_guest_packages); } > "$WORK/apt.log" 2>&1
    then
        tail -30 "$WORK/apt.log" >&2
        softroce_die "installing guest packages failed (log above)"
    fi
    chroot "$root" apt-get clean
    chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' > "$out/packages.txt"
    unmount_chroot "$root"
    rm -f "$root/usr/sbin/policy-rc.d"
    rm -rf "$root"/var/lib/apt/lists/*

    [ -n "$(find "$root/lib/modules" -name 'rdma_rxe.ko*' -print -quit)" ] ||
        softroce_die "the guest kernel has no rdma_rxe module"

    # The guest's JDK 22+ (issue 28): a copy of the host's (softroce_host_jdk), less SOFTROCE_JDK_EXCLUDES, at
    # $SOFTROCE_GUEST_JDK; the guest job runs its verbs suites on it (FFM) and the conformance suite on Debian's 17.
    # Proven to start in the guest's root (its libc and libraries) before the image is made.
    local jdk excluded
    jdk=$(softroce_host_jdk) || softroce_die "$(softroce_no_jdk_message)"
    softroce_log "copying the host's JDK $(softroce_jdk_feature "$jdk") ($jdk) to $SOFTROCE_GUEST_JDK"
    mkdir -p "$root$(dirname "$SOFTROCE_GUEST_JDK")"
    cp -a "$jdk/." "$root$SOFTROCE_GUEST_JDK/"
    for excluded in $SOFTROCE_JDK_EXCLUDES
    do
        rm -rf "${root:?}$SOFTROCE_GUEST_JDK/$excluded"
    done
    chmod -R a+rX "$root$SOFTROCE_GUEST_JDK"
    mount_chroot "$root"
    chroot "$root" "$SOFTROCE_GUEST_JDK/bin/java" -version > "$WORK/jdk.log" 2>&1 ||
        { cat "$WORK/jdk.log" >&2; softroce_die "the JDK copied from $jdk does not start in the guest's root"; }
    unmount_chroot "$root"
    softroce_log "guest JDK: $(head -1 "$WORK/jdk.log"), $(du -sh "$root$SOFTROCE_GUEST_JDK" | cut -f1)"

    # The init, and an unprivileged user for memlock tests (uid 1000; the job decides its limits).
    install -m 0755 "$SOFTROCE_DIR/guest-init.sh" "$root/sbin/rdmakv-init"
    chroot "$root" useradd --create-home --uid 1000 --shell /bin/bash rdmakv
    echo rdmakv-guest > "$root/etc/hostname"
    : > "$root/etc/fstab"
    softroce_log "TIMING root file system $(( $(date +%s) - t0 ))s, $(du -sxh "$root" | cut -f1)"

    t=$(date +%s)
    cp -L "$root/vmlinuz" "$out/vmlinuz"
    cp -L "$root/initrd.img" "$out/initrd.img"
    # Headroom for what the guest writes (the Docker engine's /var/lib/docker: the imported base image, the server
    # image, containers); the file is sparse and -snapshot keeps every write out of the cached image anyway.
    truncate -s $(( $(du -sxm "$root" | cut -f1) + SOFTROCE_IMAGE_HEADROOM_MIB ))M "$out/rootfs.img"
    mkfs.ext4 -q -F -L rdmakv-root -d "$root" "$out/rootfs.img"
    {
        echo "key=$key"
        echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "suite=$SOFTROCE_SUITE"
        echo "mirror=$mirror"
        echo "kernel=$(basename "$(readlink -f "$root/vmlinuz")")"
        echo "packages=$(softroce_guest_packages)"
        echo "jdk=$SOFTROCE_GUEST_JDK from $jdk: $(sed -n 's/^IMPLEMENTOR_VERSION="\(.*\)"/\1/p' "$jdk/release")" \
             "$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$jdk/release")"
    } > "$out/manifest.txt"
    softroce_log "TIMING ext4 image $(( $(date +%s) - t ))s, $(du -h "$out/rootfs.img" | cut -f1) used"

    # Last step: COMPLETE, then an atomic rename into place. Anything else that fails leaves no image dir.
    touch "$out/COMPLETE"
    mkdir -p "$(dirname "$image_dir")"
    rm -rf "$image_dir"
    mv "$out" "$image_dir"
    softroce_log "TIMING image build total $(( $(date +%s) - t0 ))s -> $image_dir"
}

main()
{
    install_host_packages
    softroce_check_qemu
    softroce_log "qemu: $(qemu-system-x86_64 --version | head -1)"

    local key image_dir
    # Fails with the reason when the host has no JDK 22+ to copy into the guest.
    key=$(softroce_image_key) || exit 1
    image_dir=$SOFTROCE_CACHE/images/$key
    mkdir -p "$SOFTROCE_CACHE"
    exec 9> "$SOFTROCE_CACHE/.lock"
    flock -w 3600 9 || softroce_die "timed out waiting for another build-guest.sh to finish"

    remove_leftovers "$key"
    if softroce_image_is_complete "$image_dir"
    then
        softroce_log "guest image $key is cached in $image_dir"
        return 0
    fi
    softroce_log "guest image $key is not cached: building it (a few minutes)"
    build_image "$key" "$image_dir"
}

[ "${RDMAKV_SOFTROCE_SKIP_HOST_PACKAGES:-0}" = 1 ] && install_host_packages() { :; }
main "$@"
