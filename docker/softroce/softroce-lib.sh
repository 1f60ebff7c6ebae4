# softroce-lib.sh - shared helpers for build-guest.sh, run-in-guest.sh and verify-guest-results.sh.
# Sourced, never executed. Keeps the cache location and the image key in ONE place so the builder and the runner
# can never disagree about which image belongs to the current package list and init script.

SOFTROCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Bump when build-guest.sh changes what ends up in the image in a way the package list and init do not show.
SOFTROCE_IMAGE_FORMAT=2
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

# The cache key: what the image is made of. The job script is NOT part of it (it travels through the share).
softroce_image_key()
{
    {
        echo "format=$SOFTROCE_IMAGE_FORMAT suite=$SOFTROCE_SUITE"
        softroce_guest_packages
        cat "$SOFTROCE_DIR/guest-init.sh"
    } | sha256sum | cut -c1-16
}

softroce_image_dir()
{
    echo "$SOFTROCE_CACHE/images/$(softroce_image_key)"
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
