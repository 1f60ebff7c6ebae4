#!/usr/bin/env bash
# Profile an rdmakv node's RESP port under redis-benchmark with async-profiler (itimer, collapsed stacks), and print
# the node's CPU per operation over the measured run (/proc utime + stime / operations; the warm-up not counted).
#
#   benchmarks/scripts/resp-profile.sh OUTDIR set|get CLIENTS PIPELINE OPS
#
# LIBASYNCPROFILER: the agent (default /tmp/asprof/linux-x64/libasyncProfiler.so; unzip it from Maven Central's
#   tools.profiler:async-profiler jar: mvn dependency:get -Dartifact=tools.profiler:async-profiler:4.0, then
#   unzip -o ~/.m2/repository/tools/profiler/async-profiler/4.0/async-profiler-4.0.jar 'linux-x64/*' -d /tmp/asprof).
# RDMAKV_JAR picks the node's jar. The profile covers the node's whole life (start-up and warm-up included):
# read it per thread (the event loop's frames) rather than as a whole.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out=$1; op=$2; c=$3; p=$4; n=$5
agent="${LIBASYNCPROFILER:-/tmp/asprof/linux-x64/libasyncProfiler.so}"
port=16390
rm -rf "$out"; mkdir -p "$out"
RDMAKV_JAVA_OPTS="-agentpath:$agent=start,event=itimer,interval=1ms,file=$out/prof.collapsed,collapsed" \
  "$root/bin/rdmakv" server --data-dir "$out/node" --port 17500 --data-port 17501 --resp-port "$port" \
  --pool-size 256MiB >"$out/node.log" 2>&1 &
node_pid=$!
trap 'kill $node_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q '^READY' "$out/node.log" && break; sleep 1; done
jvm_pid=$(pgrep -P "$node_pid" java || echo "$node_pid")
redis-benchmark -p "$port" -t set,get -n 200000 -c 50 -P 16 -r 100000 -d 100 -q >/dev/null 2>&1   # warm-up
before=$(awk '{print $14 + $15}' "/proc/$jvm_pid/stat")
redis-benchmark -p "$port" -t "$op" -n "$n" -c "$c" -P "$p" -r 100000 -d 100 -q 2>/dev/null | tr '\r' '\n' | tail -2
after=$(awk '{print $14 + $15}' "/proc/$jvm_pid/stat")
python3 -c "print(f'node CPU per operation: {($after - $before) / $(getconf CLK_TCK) * 1e6 / $n:.2f} us')"
kill "$jvm_pid"; wait "$node_pid" 2>/dev/null || true
echo "profile: $out/prof.collapsed (collapsed stacks; the event loop's are under EpollIoHandler.run)"
