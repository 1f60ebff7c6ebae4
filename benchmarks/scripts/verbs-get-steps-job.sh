#!/bin/bash
# The SoftRoCE guest's job of verbs-get-steps.sh (run-in-guest.sh copies it into the share as job.sh): a cached
# one-sided GET over verbs, its latency beside ib_read_lat in the same boot, and where its time goes per step.
#
# In the share (/mnt/host): rdmakv (bin/rdmakv), after.jar and optionally before.jar (launcher jars built on a JDK 22+,
# so the FFM binding is in them), libasyncProfiler.so. Writes results/: perftest logs and perftest.properties,
# server.log, bench-<n>-<jar>.txt/.json, profile.collapsed (async-profiler, itimer, on the
# bench JVM of the last run), steps.txt is made on the host. Settings (job.env): RDMAKV_JOB_GET_SECONDS (30) measured seconds per
# bench run, RDMAKV_JOB_WARMUP_SECONDS (20), RDMAKV_JOB_PROFILE_SECONDS (120) measured seconds of the profiled run.
# Seen in the one boot so far (2026-12-07): a bench JVM died of SIGILL in C1 code under TCG (an emulation fault, the
# pc inside a call instruction), and one was refused by the node ("no good HELLO within 5000 ms": its JVM was slower
# than the node's handshake timeout); the JIT was still warming after 15 s (ops/s rising), so warm up longer.
set -u
SHARE=/mnt/host
[ -f "$SHARE/job.env" ] && . "$SHARE/job.env"
R=$SHARE/results
rm -rf "$R" && mkdir -p "$R"
IP=10.0.2.15
DEV=rxe0
GID=1
JDK=/opt/rdmakv-jdk
export JAVA_HOME=$JDK RDMAKV_CDS=off
FFM="--enable-native-access=ALL-UNNAMED -Drdmakv.native=ffm"
SECONDS_MEASURED=${RDMAKV_JOB_GET_SECONDS:-30}
WARMUP=${RDMAKV_JOB_WARMUP_SECONDS:-20}
PROFILE_SECONDS=${RDMAKV_JOB_PROFILE_SECONDS:-120}
log() { echo "[job $(date -u +%H:%M:%S)] $*" | tee -a "$R/job.log"; }

# As the standard job does (guest-job.sh): RoCE MTU 4096, names resolved from files, no memlock limit.
ip link set eth0 mtu 9000 || true
printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$IP" "$(hostname)" > /etc/hosts
: > /etc/resolv.conf
ulimit -l unlimited
log "java: $("$JDK/bin/java" -version 2>&1 | head -1); cpus $(nproc)"

wait_for_listener()
{
    local port=$1 i
    for i in $(seq 1 300); do ss -ltn "sport = :$port" 2>/dev/null | grep -q LISTEN && return 0; sleep 0.1; done
    return 1
}

# ib_read_lat, 2 B and 128 B, server and client on rxe0 (the yardstick of the same boot).
{
    echo "# perftest latency under emulation (usec, typical avg), $DEV"
    port=18515
    for size in 2 128; do
        port=$((port + 1))
        args=(-d "$DEV" -x "$GID" -F -s "$size" -n 1000 -p "$port")
        timeout 180 ib_read_lat "${args[@]}" > "$R/ib_read_lat-$size.server.log" 2>&1 &
        server=$!
        wait_for_listener "$port"
        timeout 180 ib_read_lat "${args[@]}" "$IP" > "$R/ib_read_lat-$size.client.log" 2>&1
        wait "$server"
        awk -v s="$size" '$1 == s && $2 ~ /^[0-9]+$/ { print "ib_read_lat." s "B=" $5 " " $6; exit }' \
            "$R/ib_read_lat-$size.client.log"
    done
} > "$R/perftest.properties"
log "perftest: $(tr '\n' ' ' < "$R/perftest.properties")"

# One verbs node (the after jar; a one-sided GET costs the node nothing).
mkdir -p /var/tmp/node
RDMAKV_JAR=$SHARE/after.jar RDMAKV_JAVA_OPTS="-Xmx512m $FFM" bash "$SHARE/rdmakv" server --transport verbs \
    --host "$IP" --port 7400 --data-port 7401 --data-dir /var/tmp/node --pool-size 64MiB > "$R/server.log" 2>&1 &
for _ in $(seq 1 600); do grep -q READY "$R/server.log" && break; sleep 1; done
grep -q READY "$R/server.log" || { log "node did not start"; exit 1; }
node_pid=$(pgrep -f 'after.jar server' | head -1)
log "node ready (pid $node_pid)"

# bench NAME JAR [extra launcher env]: a cached one-sided GET, 100 B, one in flight, 500 keys as the figures test.
loaded=""
bench()
{
    local n=$1 jar=$2 load=(--load)
    [ -n "$loaded" ] && load=(--no-load)
    loaded=yes
    log "bench $n ($jar): load $(cut -d' ' -f1-3 /proc/loadavg)"
    RDMAKV_JAR=$SHARE/$jar.jar RDMAKV_JAVA_OPTS="-Xms256m -Xmx256m -XX:-AlwaysPreTouch $FFM" \
        timeout 900 bash "$SHARE/rdmakv" bench --transport verbs -s "$IP:7400" --server-pid "$node_pid" -w C \
        --value-size 100 --key-size 16 --keys 500 -d "${SECONDS_MEASURED}s" --warmup "${WARMUP}s" "${load[@]}" \
        --json "$R/bench-$n-$jar.json" > "$R/bench-$n-$jar.txt" 2> "$R/bench-$n-$jar.progress"
    log "bench $n ($jar) exit $?: $(grep -E '^GET ' "$R/bench-$n-$jar.txt" | head -1)"
}

if [ -f "$SHARE/before.jar" ]; then order=(before after after before); else order=(after after); fi
n=0
for jar in "${order[@]}"; do n=$((n + 1)); bench "$n" "$jar"; done

# The profiled run: async-profiler loaded at the bench JVM's start (itimer: no perf events under TCG), per thread,
# written when the JVM exits. Its profile holds the warm-up too, so the run is long. (Loading it later through
# `jcmd <pid> JVMTI.agent_load` does not work: jcmd hands async-profiler a broken option string, "event must not be
# empty", return code 100; asprof, which attaches properly, is not in the Maven jar.)
n=$((n + 1))
log "bench $n (after, profiled from its start): load $(cut -d' ' -f1-3 /proc/loadavg)"
RDMAKV_JAR=$SHARE/after.jar RDMAKV_JAVA_OPTS="-Xms256m -Xmx256m -XX:-AlwaysPreTouch $FFM \
-agentpath:$SHARE/libasyncProfiler.so=start,event=itimer,interval=1000000,threads,file=$R/profile.collapsed,collapsed" \
    timeout 900 bash "$SHARE/rdmakv" bench --transport verbs -s "$IP:7400" --server-pid "$node_pid" -w C \
    --value-size 100 --key-size 16 --keys 500 -d "${PROFILE_SECONDS}s" --warmup "${WARMUP}s" --no-load \
    --json "$R/bench-$n-profiled.json" > "$R/bench-$n-profiled.txt" 2> "$R/bench-$n-profiled.progress"
log "bench $n (profiled) exit $?: $(grep -E '^GET ' "$R/bench-$n-profiled.txt" | head -1)"
kill "$node_pid" 2>/dev/null
wait
log "done"
exit 0
