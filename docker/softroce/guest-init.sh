#!/bin/bash
# guest-init.sh - PID 1 of the SoftRoCE guest (installed into the image as /sbin/rdmakv-init).
#
# Boots without systemd: mounts the kernel file systems, brings up eth0 with qemu user-net's fixed address,
# mounts the host share (virtio-9p, tag "hostshare") at /mnt/host, loads SoftRoCE (rdma_rxe) and creates ONE rxe
# device on eth0, runs /mnt/host/job.sh, writes its exit code to /mnt/host/job.rc and powers off.
#
# Lines starting with "RDMAKV-GUEST:" are markers the host script reads from the serial console.
# Exit codes written to job.rc besides the job's own: 96 = share not writable, 97 = SoftRoCE set-up failed,
# 98 = no job.sh in the share. No job.rc at all means the guest never got that far (the host reports a boot failure).
# Kernel command line option rdmakv.mode=probe only proves the guest reaches init (used to test KVM) and powers off.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8

marker()
{
    echo "RDMAKV-GUEST: $* (uptime $(cut -d' ' -f1 /proc/uptime)s)"
}

power_off()
{
    sync
    umount /mnt/host 2>/dev/null
    echo 1 > /proc/sys/kernel/sysrq
    echo o > /proc/sysrq-trigger
    sleep 30
}

mount -t proc proc /proc 2>/dev/null
mount -t sysfs sysfs /sys 2>/dev/null
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -o remount,rw /
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
marker "init started"

if grep -qw 'rdmakv.mode=probe' /proc/cmdline
then
    marker "probe ok"
    power_off
fi

hostname rdmakv-guest
ip link set lo up
# No udev: load the NIC driver ourselves (the initramfs carries only what mounts the root disk).
modprobe virtio_net
for i in $(seq 1 50)
do
    [ -e /sys/class/net/eth0 ] && break
    sleep 0.1
done
if [ -e /sys/class/net/eth0 ]
then
    # qemu user networking: the guest is always 10.0.2.15, the gateway 10.0.2.2; nothing leaves the host.
    ip link set eth0 up
    ip addr add 10.0.2.15/24 dev eth0
    ip route add default via 10.0.2.2
fi

modprobe 9pnet_virtio 2>/dev/null
mkdir -p /mnt/host
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 hostshare /mnt/host
then
    marker "cannot mount the host share"
    power_off
fi
rm -f /mnt/host/job.rc
if ! touch /mnt/host/.guest-write-test
then
    marker "host share is not writable"
    power_off
fi
rm -f /mnt/host/.guest-write-test

finish()
{
    local rc=$1
    echo "$rc" > /mnt/host/job.rc.tmp && mv /mnt/host/job.rc.tmp /mnt/host/job.rc
    marker "job rc=$rc"
    power_off
}

# SoftRoCE: one rxe device on eth0. Client and server processes both use it and talk to 10.0.2.15: rxe loops
# the traffic back internally (two rxe devices in two network namespaces do not carry RDMA on this kernel).
softroce_up()
{
    modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm || return 1
    rdma link add rxe0 type rxe netdev eth0 || return 1
    local i
    for i in $(seq 1 100)
    do
        grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && [ -e /dev/infiniband/uverbs0 ] &&
            return 0
        sleep 0.1
    done
    return 1
}

if ! softroce_up
then
    marker "SoftRoCE set-up failed"
    dmesg | tail -20
    finish 97
fi
marker "SoftRoCE ready: rxe0 on eth0"

if [ ! -f /mnt/host/job.sh ]
then
    marker "no job.sh in the share"
    finish 98
fi

marker "job start"
cd /mnt/host || finish 96
bash /mnt/host/job.sh < /dev/null 2>&1
finish $?
