# softroce-lib.sh - shared helpers for build-guest.sh, run-in-guest.sh and verify-guest-results.sh.
# Sourced, never executed. Keeps the cache location and the image key in ONE place so the builder and the runner
# can never disagree about which image belongs to the current package list and init script.

SOFTROCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Bump when build-guest.sh changes what ends up in the image in a way the package list and init do not show.
SOFTROCE_IMAGE_FORMAT=2
# Free space left in the guest's root file system (MiB): the Docker engine keeps its images and containers there.
SOFTROCE_IMAGE_HEADROOM_MIB=3072
SOFTROCE_SUITE=${RDMAKV_SOFTROCE_SUITE:-bookworm}
SOFTROCE_CACHE=${RDMAKV_SOFTROCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmakv-softroce}
SOFTROCE_HOST_PACKAGES="qemu-system-x86 qemu-utils debootstrap e2fsprogs"

softroce_log()
{
    echo "[softroce $(date -u +%H:%M:%S)] $*" >&2
}

softroce_die()
{
    echo "[softroce] ERROR: $*" >&2
    exit "${SOFTROCE_DIE_CODE:-1}"
}

# Guest packages, comments and blank lines stripped, one line.
softroce_guest_packages()
{
    sed -e 's/#.*//' "$SOFTROCE_DIR/guest-packages.txt" | tr -s ' \t\n' ' ' | sed -e 's/^ //' -e 's/ $//'
}

# The guest's second JDK (issue 28): the host's JDK 22+ (Temurin 25 on every machine of the project) copied into the
# image at $SOFTROCE_GUEST_JDK, so the guest runs its verbs suites on the FFM binding; Debian's JDK 17 (guest-packages.txt)
# runs the conformance suite on JNA. A whole JDK less what no test uses (SOFTROCE_JDK_EXCLUDES, ~250 MB): a jlink'ed
# runtime would need jmods, which Temurin 25 does not ship, and would lose the JDK's default CDS archives
# (lib/server/classes*.jsa), which a JVM start under emulation needs most.
SOFTROCE_GUEST_JDK=/opt/rdmakv-jdk
SOFTROCE_JDK_EXCLUDES="lib/src.zip man jmods demo"

# The feature release (17, 25, ...) of the JDK at $1, from its release file (no JVM started), or nothing.
softroce_jdk_feature()
{
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}

# The host's JDK 22+ to copy into the guest: RDMAKV_SOFTROCE_JDK if set, else Temurin 25 at its usual place, else
# any JDK >= 22 under /usr/lib/jvm (the first found, as .ci/run chooses). Prints nothing and fails when none exists.
softroce_host_jdk()
{
    local candidate feature
    if [ -n "${RDMAKV_SOFTROCE_JDK:-}" ]
    then
        feature=$(softroce_jdk_feature "$RDMAKV_SOFTROCE_JDK")
        [ -x "$RDMAKV_SOFTROCE_JDK/bin/java" ] && [ -n "$feature" ] && [ "$feature" -ge 22 ] || return 1
        echo "$RDMAKV_SOFTROCE_JDK"
        return 0
    fi
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*
    do
        [ -x "$candidate/bin/java" ] && [ -f "$candidate/release" ] || continue
        feature=$(softroce_jdk_feature "$candidate")
        if [ -n "$feature" ] && [ "$feature" -ge 22 ]
        then
            readlink -f "$candidate"
            return 0
        fi
    done
    return 1
}

softroce_no_jdk_message()
{
    echo "no JDK 22 or later on this host (RDMAKV_SOFTROCE_JDK=${RDMAKV_SOFTROCE_JDK:-unset}; looked for" \
         "/usr/lib/jvm/temurin-25-jdk-amd64 and any JDK >= 22 under /usr/lib/jvm): the guest image carries a copy of" \
         "it to run the verbs suites on the FFM binding (issue 28). Install Temurin 25 there, or point" \
         "RDMAKV_SOFTROCE_JDK at a JDK >= 22, and run again."
}

# The cache key: what the image is made of. The job script is NOT part of it (it travels through the share).
# The JDK copied into the image counts through its release file (vendor, version, build, module list) and what the
# copy leaves out. Fails (no output) when the host has no JDK 22+.
softroce_image_key()
{
    local jdk
    jdk=$(softroce_host_jdk) || { echo "[softroce] ERROR: $(softroce_no_jdk_message)" >&2; return 1; }
    {
        echo "format=$SOFTROCE_IMAGE_FORMAT suite=$SOFTROCE_SUITE"
        softroce_guest_packages
        cat "$SOFTROCE_DIR/guest-init.sh"
        echo "jdk=$SOFTROCE_GUEST_JDK excludes=$SOFTROCE_JDK_EXCLUDES"
        cat "$jdk/release"
    } | sha256sum | cut -c1-16
}

softroce_image_dir()
{
    local key
    key=$(softroce_image_key) || return 1
    echo "$SOFTROCE_CACHE/images/$key"
}

# An image is valid only when the builder got to the very end and wrote COMPLETE after everything else.
softroce_image_is_complete()
{
    local dir=$1
    [ -f "$dir/COMPLETE" ] && [ -s "$dir/rootfs.img" ] && [ -s "$dir/vmlinuz" ] && [ -s "$dir/initrd.img" ]
}

# Proves qemu can start a TCG machine at all: starts it paused and quits through the monitor.
softroce_check_qemu()
{
    command -v qemu-system-x86_64 >/dev/null ||
        softroce_die "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86), run build-guest.sh"
    local out
    if ! out=$(echo quit | timeout 60 qemu-system-x86_64 -accel tcg -machine pc -m 64 -nodefaults -display none \
                   -S -monitor stdio 2>&1)
    then
        softroce_die "qemu-system-x86_64 cannot start a TCG machine on this host: $out"
    fi
}

# The first Debian mirror the host's apt already uses (deb822 sources first, then the one-line format).
host_mirror()
{
    local m=""
    m=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | cut -d' ' -f1) || true
    [ -n "$m" ] || m=$(awk '/^deb /{ for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' \
                           /etc/apt/sources.list 2>/dev/null) || true
    [ -n "$m" ] || softroce_die "no Debian mirror found in /etc/apt/sources.list(.d); set RDMAKV_SOFTROCE_MIRROR"
    echo "$m"
}

# Mounts the chroot needs for apt and the kernel's postinst scripts; undone by unmount_chroot in every case.
CHROOT_MOUNTS=(proc sys dev dev/pts)
mount_chroot()
{
    local root=$1
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --bind /dev "$root/dev"
    mount --bind /dev/pts "$root/dev/pts"
}

unmount_chroot()
{
    local root=$1 i m
    for (( i = ${#CHROOT_MOUNTS[@]} - 1; i >= 0; i-- ))
    do
        m="$root/${CHROOT_MOUNTS[$i]}"
        mountpoint -q "$m" 2>/dev/null && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
    return 0
}


# The chroot's apt uses the same sources as the host (same mirror, same snapshot pinning if any).
copy_apt_sources()
{
    local root=$1 mirror=$2 f copied=0
    rm -f "$root/etc/apt/sources.list"
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
    do
        [ -f "$f" ] || continue
        cp "$f" "$root/etc/apt/${f#/etc/apt/}"
        copied=1
    done
    [ $copied = 1 ] || echo "deb $mirror $SOFTROCE_SUITE main" > "$root/etc/apt/sources.list"
}

# The container base image (build-base-image.sh): its packages, cache key, directory and the tag it is imported as.
SOFTROCE_BASE_FORMAT=1
SOFTROCE_BASE_TAG=rdmakv-base:bookworm

base_packages()
{
    sed -e 's/#.*//' "$SOFTROCE_DIR/base-packages.txt" | tr -s ' \t\n' ' ' | sed -e 's/^ //' -e 's/ $//'
}

softroce_base_key()
{
    { echo "base-format=$SOFTROCE_BASE_FORMAT suite=$SOFTROCE_SUITE"; base_packages; } | sha256sum | cut -c1-16
}

softroce_base_dir()
{
    echo "$SOFTROCE_CACHE/base/$(softroce_base_key)"
}

softroce_base_is_complete()
{
    [ -f "$1/COMPLETE" ] && [ -s "$1/rootfs.tar" ]
}

# The work directory of a build (build-guest.sh, build-base-image.sh): set WORK, then `trap softroce_cleanup_work
# EXIT`. Removes it, but only once nothing is mounted below it any more.
WORK=""
softroce_cleanup_work()
{
    [ -n "$WORK" ] && [ -d "$WORK" ] || return 0
    unmount_chroot "$WORK/rootfs"
    if findmnt -rn -o TARGET | grep -q "^$WORK/"
    then
        softroce_log "NOT removing $WORK: something is still mounted below it"
        return 0
    fi
    rm -rf --one-file-system "$WORK"
}

# A minimal Debian in ROOT from MIRROR (debootstrap's log in $WORK/debootstrap.log, its tail on failure), with the
# host's apt sources and a policy that no daemon starts inside the chroot while packages install.
softroce_bootstrap_root()
{
    local root=$1 mirror=$2
    if ! debootstrap --variant=minbase "$SOFTROCE_SUITE" "$root" "$mirror" > "$WORK/debootstrap.log" 2>&1
    then
        tail -20 "$WORK/debootstrap.log" >&2
        softroce_die "debootstrap failed (log above)"
    fi
    copy_apt_sources "$root" "$mirror"
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
}
