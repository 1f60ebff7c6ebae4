#!/usr/bin/env bash
# PUT latency over shm (issue 15), one sitting: a node started --transport shm and a default node (tcp main, shm
# served beside it), one PUT of 100 B in flight, interleaved in A B B A blocks so drifting load hits every
# configuration alike; the RocksDB write of a PUT alone between the blocks; the 1-minute load before every run.
# Configurations: shm-node (shm client, --transport shm node), default-shm (shm client, default node), default-tcp
# (tcp client, default node), and the legs without the store write: shm-node-rpcget and default-shm-rpcget (a GET
# answered by the node over the rings, -w C --get-mode rpc: the same round trip, decode and answer, no RocksDB write).
# RDMAKV_JAR runs another build's jar (nodes, bench and the RocksDB write alike).
#
#   benchmarks/scripts/shm-put.sh [OUT_DIR] [BLOCKS]     (default /tmp/rdmakv-shm-put, 2 blocks of A B B A)
#   prints one line per run (also to OUT_DIR/log), JSON per run under OUT_DIR; then
#   benchmarks/scripts/shm-put-summary.py OUT_DIR   per configuration: the runs in order, medians, the ratios
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rdmakv="$root/bin/rdmakv"
jar="${RDMAKV_JAR:-$root/cli/target/rdmakv.jar}"
export RDMAKV_JAR="$jar"
out="${1:-/tmp/rdmakv-shm-put}"
blocks="${2:-2}"
rm -rf "$out" && mkdir -p "$out"
exec > >(tee "$out/log") 2>&1
echo "jar: $jar ($(stat -c %y "$jar" | cut -d. -f1))"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

start_node() { # name, then server arguments -> "controlPort javaPid timeoutPid"
  local name=$1 cp dp; shift
  cp=$(free_port); dp=$(free_port)
  RDMAKV_JAVA_OPTS="-Xmx1g" timeout 3600 "$rdmakv" server --host 127.0.0.1 --port "$cp" --data-port "$dp" \
    --data-dir "$out/data-$name" --pool-size 256MiB --pin OFF "$@" >"$out/server-$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do grep -q READY "$out/server-$name.log" 2>/dev/null && break; sleep 0.5; done
  grep -q READY "$out/server-$name.log" || { echo "node $name did not start" >&2; cat "$out/server-$name.log" >&2; exit 1; }
  echo "$cp $(pgrep -P "$pid" | head -1) $pid"
}
read -r shm_port shm_pid shm_timeout <<<"$(start_node shm --transport shm)"
pids+=("$shm_timeout")
read -r def_port def_pid def_timeout <<<"$(start_node default)"
pids+=("$def_timeout")
grep -o 'READY.*' "$out/server-default.log" | head -1

common=(--no-load --value-size 100 --keys 5000 --key-size 16 -d 3s --warmup 1s)
run() { # config
  local c=$1 n=1 args
  while [ -f "$out/$c-$n.json" ]; do n=$((n + 1)); done
  case $c in
    shm-node) args=(-w put=100 --transport shm -s "127.0.0.1:$shm_port" --server-pid "$shm_pid") ;;
    default-shm) args=(-w put=100 --transport shm -s "127.0.0.1:$def_port" --server-pid "$def_pid") ;;
    default-tcp) args=(-w put=100 --transport tcp -s "127.0.0.1:$def_port" --server-pid "$def_pid") ;;
    shm-node-rpcget) args=(-w C --get-mode rpc --transport shm -s "127.0.0.1:$shm_port" --server-pid "$shm_pid") ;;
    default-shm-rpcget) args=(-w C --get-mode rpc --transport shm -s "127.0.0.1:$def_port" --server-pid "$def_pid") ;;
  esac
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  local line
  line=$(timeout 300 "$rdmakv" bench --no-progress --json "$out/$c-$n.json" "${common[@]}" "${args[@]}" 2>&1 \
    | grep -E '^(PUT|GET) ' || echo "failed")
  echo "$c-$n  load $load  $line"
}
rocks() {
  local n=1
  while [ -d "$out/rocks-$n" ]; do n=$((n + 1)); done
  echo "rocksdb-write-$n  load $(cut -d' ' -f1 /proc/loadavg)  $(timeout 300 java \
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp "$jar" "$root/benchmarks/scripts/RocksWriteAlone.java" \
    100 20000 "$out/rocks-$n" 2>/dev/null)"
}
# the keys once per node, untimed
timeout 300 "$rdmakv" bench --no-progress -w put=100 --value-size 100 --keys 5000 --key-size 16 -d 1s --warmup 0s \
  --transport shm -s "127.0.0.1:$shm_port" >/dev/null 2>&1 || true
timeout 300 "$rdmakv" bench --no-progress -w put=100 --value-size 100 --keys 5000 --key-size 16 -d 1s --warmup 0s \
  --transport tcp -s "127.0.0.1:$def_port" >/dev/null 2>&1 || true
for b in $(seq 1 "$blocks"); do
  echo "== block $b (uptime: $(uptime | sed 's/.*load/load/'))"
  rocks
  for c in shm-node default-shm default-tcp shm-node-rpcget default-shm-rpcget \
           default-shm-rpcget shm-node-rpcget default-tcp default-shm shm-node; do run "$c"; done
done
rocks
echo "JSON in $out"
