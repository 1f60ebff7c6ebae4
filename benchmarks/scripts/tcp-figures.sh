#!/usr/bin/env bash
# tcp-figures.sh OUT [PAIRS]: issue 27's TCP shapes against redis in one sitting, each through compare.sh (ABBA pairs,
# the peers' own tools where they have one), then the same node shapes on a BASE jar for before/after.
#
#   benchmarks/scripts/tcp-figures.sh /tmp/tcpfigs 3
#   RDMAKV_BASE_JAR=/tmp/rdmakv-base.jar benchmarks/scripts/tcp-figures.sh /tmp/tcpfigs 3   # with the "before" runs
#   YCSB_STEADY=3 benchmarks/scripts/tcp-figures.sh /tmp/tcpfigs 5   # YCSB also after each run's first 3 s (compare.sh --ycsb-steady)
#
# YCSB A/B/C at 1 and 16 client threads (rdmakv, redis, redis-aof; --pairs PAIRS of 8 s runs); redis-benchmark against
# `rdmakv bench` for GET and SET at 50 connections x 16 pipelined and 50 x 1, and GET/SET p50 at 1 x 1 (10 pairs of
# 2 s); redis-aof at SET 50 x 16 through redis-benchmark beside rdmakv bench (3 interleaved runs). Every log stays in
# OUT; the summary lines are printed at the end. Never fails on a figure; needs the jars built
# (mvn -B -q -pl cli,benchmarks,benchmarks/ycsb -am package -DskipTests).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: tcp-figures.sh OUT [PAIRS]}"
pairs="${2:-3}"
mkdir -p "$out"
cmp="$root/benchmarks/compare.sh"
log() { echo "### $(date -u +%T) $*"; }

ycsb_shapes() { # label, extra env
  for t in 1 16; do
    for w in C B A; do
      log "YCSB $w, $t threads $1"
      env "${@:2}" "$cmp" --ycsb "$w" --threads "$t" --pairs "$pairs" --trial 8s --warmup 3s ${YCSB_STEADY:+--ycsb-steady "$YCSB_STEADY"} \
        --out "$out/ycsb-$w-$t$1" > "$out/ycsb-$w-$t$1.log" 2>&1 || echo "(failed: see $out/ycsb-$w-$t$1.log)"
    done
  done
}

bench_shapes() { # label, extra env
  local name args
  while read -r name args; do
    log "$name $1"
    # shellcheck disable=SC2086
    env "${@:2}" "$cmp" --peers redis $args --pairs 10 --trial 2s --warmup 2s --out "$out/$name$1" \
      > "$out/$name$1.log" 2>&1 || echo "(failed: see $out/$name$1.log)"
  done <<'EOF'
get-50x16 --peer-tool --workload C --connections 50 --threads 2 --inflight 16
set-50x16 --peer-tool --workload get=0,put=100 --connections 50 --threads 2 --inflight 16
get-50x1 --peer-tool --workload C --connections 50 --threads 2 --inflight 1
get-1x1 --workload C --connections 1 --threads 1 --inflight 1
set-1x1 --workload get=0,put=100 --connections 1 --threads 1 --inflight 1
EOF
}

ycsb_shapes ""
bench_shapes ""

# SET 50 x 16 against redis with its AOF (the like-for-like durability): redis-benchmark, interleaved with rdmakv bench.
log "SET 50x16 against redis-aof"
aof_dir="$(mktemp -d)"
redis-server --port 17690 --bind 127.0.0.1 --save '' --appendonly yes --appendfsync no --io-threads 1 \
  --dir "$aof_dir" --daemonize no > "$out/redis-aof.log" 2>&1 &
aof_pid=$!
node_dir="$(mktemp -d)"
"$root/bin/rdmakv" server --host 127.0.0.1 --control-port 17692 --data-port 17693 --data-dir "$node_dir" \
  --pool-size 512MiB > "$out/node-aof-run.log" 2>&1 &
node_pid=$!
trap 'kill $aof_pid $node_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$aof_dir" "$node_dir"' EXIT
for _ in $(seq 1 60); do
  redis-cli -p 17690 ping >/dev/null 2>&1 && grep -q READY "$out/node-aof-run.log" 2>/dev/null && break
  sleep 1
done
"$root/bin/rdmakv" bench -s 127.0.0.1:17692 --transport tcp -w get=0,put=100 -c 50 -t 2 --inflight 16 -d 3s \
  --warmup 2s --keys 100000 > /dev/null 2>&1 || true
for i in 1 2 3; do
  redis-benchmark -p 17690 -t set -n 1000000 -c 50 -P 16 -d 100 -r 100000 -q 2>/dev/null | tr '\r' '\n' |
    grep -E '^SET' | tail -1 | sed "s/^/run $i redis-aof: /" | tee -a "$out/set-50x16-aof.txt"
  "$root/bin/rdmakv" bench -s 127.0.0.1:17692 --transport tcp -w get=0,put=100 -c 50 -t 2 --inflight 16 -d 5s \
    --warmup 1s --no-load --keys 100000 2>/dev/null | grep -E '^PUT' | sed "s/^/run $i rdmakv: /" |
    tee -a "$out/set-50x16-aof.txt"
done

if [ -n "${RDMAKV_BASE_JAR:-}" ]; then
  # Before: the node (and bench) of the base jar; YCSB's client with this tree's client changes switched off.
  old_client="-Drdmakv.transport.tcp.directWrites=false -Drdmakv.client.waitYieldMicros=0 -Drdmakv.client.callerLanes=0"
  for t in 1 16; do
    log "YCSB A, $t threads, BASE"
    RDMAKV_JAR="$RDMAKV_BASE_JAR" RDMAKV_YCSB_JAVA_OPTS="$old_client" "$cmp" --ycsb A --threads "$t" \
      --pairs "$pairs" --trial 8s --warmup 3s --out "$out/ycsb-A-$t-base" > "$out/ycsb-A-$t-base.log" 2>&1 || true
  done
  for name in get-1x1 set-50x16; do
    args=$(grep -E "^$name " <<'EOF' | cut -d' ' -f2-
get-1x1 --workload C --connections 1 --threads 1 --inflight 1
set-50x16 --peer-tool --workload get=0,put=100 --connections 50 --threads 2 --inflight 16
EOF
)
    log "$name BASE"
    # shellcheck disable=SC2086
    RDMAKV_JAR="$RDMAKV_BASE_JAR" "$cmp" --peers redis $args --pairs 10 --trial 2s --warmup 2s \
      --out "$out/$name-base" > "$out/$name-base.log" 2>&1 || true
  done
fi

log "summary"
for f in "$out"/*.log; do
  case "$f" in *redis-aof.log|*node-aof-run.log) continue ;; esac
  echo "== $(basename "$f" .log)"
  grep -E '^(throughput|p50 latency|server CPU|load average)|^ +(rdmakv|redis|redis-aof):|READ p50|UPDATE p50' "$f" || true
done
cat "$out/set-50x16-aof.txt"
