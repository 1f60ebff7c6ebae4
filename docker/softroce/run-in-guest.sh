#!/bin/bash
# run-in-guest.sh - boots the cached SoftRoCE guest, runs one job in it, and exits with the job's exit code.
#
#   docker/softroce/run-in-guest.sh <share-dir> <job-script>
#
# <share-dir> appears in the guest at /mnt/host (virtio-9p); <job-script> is copied there as job.sh and run by the
# guest's init as root, with SoftRoCE already up (device rxe0 on eth0, address 10.0.2.15, RoCE v2 GID index 1).
# Every environment variable named RDMAKV_JOB_* is handed to the job through <share-dir>/job.env.
# The guest's console goes to stdout and to <share-dir>/guest-console.log. The image is booted with -snapshot, so the
# cached image never changes; only the share carries results back.
#
# Exit code: the job's exit code; 124 when the global timeout (RDMAKV_SOFTROCE_TIMEOUT seconds, default 1800) hit;
# 125 when the guest never reported an exit code (boot failure: see the console log) or no image is cached;
# 96/97/98 from the guest's init (share not writable / SoftRoCE set-up failed / no job.sh); 2 for bad arguments.
#
# Environment: RDMAKV_SOFTROCE_ACCEL=auto|tcg|kvm (auto tries KVM only when /dev/kvm exists and a probe boot works),
# RDMAKV_SOFTROCE_SMP (2), RDMAKV_SOFTROCE_MEM (MiB, 4096; 6144 with the container step), RDMAKV_SOFTROCE_CACHE
# (see build-guest.sh),
# RDMAKV_SOFTROCE_DOCKER_PORT (forward this host loopback port to the guest's Docker engine, tcp 2375).
# The container base image (build-base-image.sh), when cached, is shared read-only as the 9p tag rdmakvbase.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/softroce-lib.sh"

usage()
{
    echo "usage: $0 <share-dir> <job-script>" >&2
    exit 2
}

[ $# -eq 2 ] || usage
SHARE=$1
JOB=$2
[ -d "$SHARE" ] || { echo "[softroce] ERROR: share directory '$SHARE' does not exist" >&2; exit 2; }
[ -f "$JOB" ] && [ -r "$JOB" ] || { echo "[softroce] ERROR: job script '$JOB' is not a readable file" >&2; exit 2; }
SHARE=$(cd "$SHARE" && pwd)
TIMEOUT=${RDMAKV_SOFTROCE_TIMEOUT:-1800}
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "[softroce] ERROR: RDMAKV_SOFTROCE_TIMEOUT must be seconds" >&2; exit 2; }
SMP=${RDMAKV_SOFTROCE_SMP:-2}
# The container step (unless RDMAKV_JOB_SKIP_CONTAINERS) runs dockerd, three node JVMs and a test runner at once.
case ${RDMAKV_JOB_SKIP_CONTAINERS:-0} in 1|true) MEM=${RDMAKV_SOFTROCE_MEM:-4096} ;; *) MEM=${RDMAKV_SOFTROCE_MEM:-6144} ;; esac
CONSOLE_LOG="$SHARE/guest-console.log"

# From here on every exit is recorded for verify-guest-results.sh; any failure before the job runs is a harness
# failure, reported as 125 (not to be confused with a test failure).
rm -f "$SHARE/host-exit-code"
trap 'echo $? > "$SHARE/host-exit-code"' EXIT
SOFTROCE_DIE_CODE=125
IMAGE=$(softroce_image_dir) || softroce_die "no image key: the host has no JDK 22+ for the guest (message above)"
softroce_image_is_complete "$IMAGE" ||
    softroce_die "no guest image for the current package list/init in $IMAGE: run docker/softroce/build-guest.sh first"
softroce_check_qemu

# Hands the job its script and its settings; results from an earlier run must not be mistaken for this run's.
prepare_share()
{
    rm -f "$SHARE/job.rc" "$SHARE/job.rc.tmp" "$CONSOLE_LOG"
    cp "$JOB" "$SHARE/job.sh"
    chmod 0755 "$SHARE/job.sh"
    local name
    {
        echo "# written by run-in-guest.sh: the host's RDMAKV_JOB_* variables"
        for name in $(compgen -e | grep '^RDMAKV_JOB_' || true)
        do
            printf 'export %s=%q\n' "$name" "${!name}"
        done
    } > "$SHARE/job.env"
}

# Prints the qemu accelerator options. KVM is used only where a probe boot proves it runs this kernel: on some
# hosts /dev/kvm exists but is a paravirtual KVM that a stock Debian kernel cannot boot on.
select_accel()
{
    local tcg="-accel tcg,thread=multi,tb-size=512 -cpu max"
    local kvm="-enable-kvm -cpu host"
    case "${RDMAKV_SOFTROCE_ACCEL:-auto}" in
        tcg) softroce_log "accelerator: TCG (software emulation, requested)"; echo "$tcg"; return ;;
        kvm) softroce_log "accelerator: KVM (requested)"; echo "$kvm"; return ;;
        auto) ;;
        *) softroce_die "RDMAKV_SOFTROCE_ACCEL must be auto, tcg or kvm" ;;
    esac
    if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]
    then
        softroce_log "accelerator: TCG (software emulation: no usable /dev/kvm)"
        echo "$tcg"
        return
    fi
    local verdict="$IMAGE/kvm-probe.$(uname -r)"
    if [ ! -f "$verdict" ]
    then
        softroce_log "probing KVM with a short boot"
        # no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can miss its window and panic ("IO-APIC +
# timer doesn't work"); the emulated timer works, so the check is skipped.
# shellcheck disable=SC2086
        if timeout 90 qemu-system-x86_64 $kvm -smp 1 -m 512 -display none -nodefaults -serial stdio -no-reboot \
               -snapshot -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
               -append "console=ttyS0 root=/dev/vda rw init=/sbin/rdmakv-init rdmakv.mode=probe panic=-1 quiet" \
               -drive "file=$IMAGE/rootfs.img,format=raw,if=virtio" < /dev/null 2>&1 | grep -q 'RDMAKV-GUEST: probe ok'
        then
            echo ok > "$verdict"
        else
            echo failed > "$verdict"
        fi
    fi
    if [ "$(cat "$verdict")" = ok ]
    then
        softroce_log "accelerator: KVM (probe boot worked)"
        echo "$kvm"
    else
        softroce_log "accelerator: TCG (software emulation: /dev/kvm exists but a probe boot failed)"
        echo "$tcg"
    fi
}

# Stamps each console line with the seconds since qemu started, copies it to the log, and notes when the job began.
annotate_console()
{
    local start=$1 line now elapsed
    while IFS= read -r line
    do
        line=${line%$'\r'}
        now=${EPOCHREALTIME/./}
        elapsed=$(( (now - start) / 10000 ))
        printf -v line '[%4d.%02d] %s' $(( elapsed / 100 )) $(( elapsed % 100 )) "$line"
        echo "$line"
        echo "$line" >> "$CONSOLE_LOG"
        case "$line" in
            *"RDMAKV-GUEST: job start"*) echo "boot_to_job_seconds=$(( elapsed / 100 )).$(( elapsed % 100 ))" \
                                              > "$SHARE/boot-timing.txt" ;;
        esac
    done
}

finish()
{
    exit "$1"
}

prepare_share
ACCEL=$(select_accel) || finish 125
# The container base image (build-base-image.sh), read-only at the 9p tag rdmakvbase, when it is cached.
BASE_SHARE=""
BASE_DIR=$(softroce_base_dir)
if softroce_base_is_complete "$BASE_DIR"
then
    BASE_SHARE="-virtfs local,path=$BASE_DIR,mount_tag=rdmakvbase,security_model=none,readonly=on,id=rdmakvbase"
else
    case ${RDMAKV_JOB_SKIP_CONTAINERS:-0} in
        1|true) ;; # the container step is skipped: no base image needed
        *) softroce_log "no container base image cached in $BASE_DIR (build-base-image.sh): the container step will fail" ;;
    esac
fi
# RDMAKV_SOFTROCE_DOCKER_PORT: the guest's Docker engine (tcp 2375, RDMAKV_JOB_DOCKER_TCP=1) on host loopback.
FORWARD=""
if [ -n "${RDMAKV_SOFTROCE_DOCKER_PORT:-}" ]
then
    FORWARD=",hostfwd=tcp:127.0.0.1:${RDMAKV_SOFTROCE_DOCKER_PORT}-10.0.2.15:2375"
    softroce_log "the guest's Docker engine will be at tcp://127.0.0.1:${RDMAKV_SOFTROCE_DOCKER_PORT}"
fi
softroce_log "booting $(basename "$IMAGE") (smp $SMP, $MEM MiB, timeout ${TIMEOUT}s); console log $CONSOLE_LOG"
START=${EPOCHREALTIME/./}
rm -f "$SHARE/boot-timing.txt"

# restrict=on: the guest's user-mode network reaches nothing outside; RDMA traffic stays inside the guest kernel.
# virtio-rng: a fresh guest has little entropy of its own; JVMs seeding SecureRandom (rkey tokens, session tickets)
# must not wait for it.
# shellcheck disable=SC2086
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 $ACCEL -smp "$SMP" -m "$MEM" \
    -display none -nodefaults -serial stdio -monitor none -no-reboot -snapshot \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
    -append "console=ttyS0 root=/dev/vda rw init=/sbin/rdmakv-init net.ifnames=0 panic=-1 no_timer_check quiet" \
    -drive "file=$IMAGE/rootfs.img,format=raw,if=virtio" \
    -virtfs "local,path=$SHARE,mount_tag=hostshare,security_model=none,id=hostshare" \
    $BASE_SHARE \
    -netdev "user,id=net0,restrict=on$FORWARD" -device virtio-net-pci,netdev=net0 \
    -object rng-random,id=rng0,filename=/dev/urandom -device virtio-rng-pci,rng=rng0 \
    < /dev/null 2>&1 | annotate_console "$START"
QEMU_RC=${PIPESTATUS[0]}
TOTAL=$(( (${EPOCHREALTIME/./} - START) / 1000000 ))
BOOT=$(sed -n 's/^boot_to_job_seconds=//p' "$SHARE/boot-timing.txt" 2>/dev/null)

if [ "$QEMU_RC" = 124 ] || [ "$QEMU_RC" = 137 ]
then
    softroce_log "ERROR: the guest did not finish within ${TIMEOUT}s and was killed (see $CONSOLE_LOG)"
    finish 124
fi
if [ ! -f "$SHARE/job.rc" ]
then
    softroce_log "ERROR: the guest never reported a job exit code (qemu exit $QEMU_RC): boot or set-up failure," \
                 "see $CONSOLE_LOG"
    finish 125
fi
JOB_RC=$(cat "$SHARE/job.rc")
[[ "$JOB_RC" =~ ^[0-9]+$ ]] || { softroce_log "ERROR: unreadable job exit code '$JOB_RC'"; finish 125; }
softroce_log "TIMING boot to job ${BOOT:-?}s, guest total ${TOTAL}s; job exit code $JOB_RC"
finish "$JOB_RC"
