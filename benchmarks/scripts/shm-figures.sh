#!/usr/bin/env bash
# Issue 15's figures on one host, in one run: bench over shm against the --driver local floor and against tcp,
# ABBA-ordered pairs (shm, tcp, tcp, shm) so drifting load hits both alike; prints the load average before each run.
# Needs the launcher jar (mvn -B -q -pl cli -am package -DskipTests); RDMAKV_JAR runs another build's jar (nodes,
# bench and the RocksDB write alike), e.g. a copy of the jar before a change, for a before/after in one sitting.
# Writes JSON per run under $OUT. SHM_FIGURES_ONLY=get100 runs the 100 B GETs alone (floor, cached, cold: a short
# before/after of the GET path, e.g. alternated with RDMAKV_JAR in ABBA order).
#
#   benchmarks/scripts/shm-figures.sh [OUT_DIR]      (default /tmp/rdmakv-shm-figures)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rdmakv="$root/bin/rdmakv"
jar="${RDMAKV_JAR:-$root/cli/target/rdmakv.jar}"
out="${1:-/tmp/rdmakv-shm-figures}"
only="${SHM_FIGURES_ONLY:-}"
case "$only" in ""|get100) ;; *) echo "SHM_FIGURES_ONLY must be empty or get100, not '$only'" >&2; exit 2 ;; esac
rm -rf "$out" && mkdir -p "$out"
echo "jar: $jar ($(stat -c %y "$jar" | cut -d. -f1))"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

start_node() { # transport -> "controlPort pid"
  local t=$1 cp dp
  cp=$(free_port); dp=$(free_port)
  RDMAKV_JAVA_OPTS="-Xmx1g" timeout 3600 "$rdmakv" server --transport "$t" --host 127.0.0.1 --port "$cp" \
    --data-port "$dp" --data-dir "$out/data-$t" --pool-size 256MiB --pin OFF >"$out/server-$t.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do grep -q READY "$out/server-$t.log" 2>/dev/null && break; sleep 0.5; done
  grep -q READY "$out/server-$t.log" || { echo "node on $t did not start" >&2; cat "$out/server-$t.log" >&2; exit 1; }
  # $pid is timeout's (stopped by cleanup); the launcher execs java in its child, whose CPU bench reads from /proc.
  echo "$cp $(pgrep -P "$pid" | head -1) $pid"
}
# start_node runs in a subshell ($(...)): the parent records the pids to stop.
read -r shm_port shm_pid shm_timeout <<<"$(start_node shm)"
pids+=("$shm_timeout")
read -r tcp_port tcp_pid tcp_timeout <<<"$(start_node tcp)"
pids+=("$tcp_timeout")

run() { # name, then bench arguments
  local name=$1; shift
  echo "== $name  (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  timeout 300 "$rdmakv" bench --no-progress --json "$out/$name.json" "$@" 2>&1 | grep -E '^(GET|PUT) |server CPU' || true
}
common=(--keys 5000 --key-size 16 -d 3s --warmup 1s)
loaded=" "
load_once() { # transport value -> --no-load after the first run of that value size on that node
  if [[ "$loaded" == *" $1-$2 "* ]]; then echo "--no-load"; else loaded="$loaded$1-$2 "; fi
}
node() { # transport
  if [ "$1" = shm ]; then echo "--transport shm -s 127.0.0.1:$shm_port --server-pid $shm_pid";
  else echo "--transport tcp -s 127.0.0.1:$tcp_port --server-pid $tcp_pid"; fi
}

values=(100 4096); [ "$only" = get100 ] && values=(100)
for value in "${values[@]}"; do
  run "local-$value-a" --driver local -w C --value-size "$value" "${common[@]}"
  for cache in cached cold; do
    lc=(); [ "$cache" = cold ] && lc=(--location-cache 0)
    for t in shm tcp tcp shm; do
      n=1; [ -f "$out/$t-get-$value-$cache-1.json" ] && n=2
      nl=$(load_once "$t" "$value")
      # shellcheck disable=SC2046
      run "$t-get-$value-$cache-$n" -w C --value-size "$value" "${lc[@]}" "${common[@]}" $nl $(node "$t")
    done
  done
  run "local-$value-b" --driver local -w C --value-size "$value" "${common[@]}"
done
if [ "$only" = get100 ]; then echo "JSON in $out"; exit 0; fi
for t in shm tcp tcp shm; do # two client threads, two connections: throughput
  n=1; [ -f "$out/$t-get2t-1.json" ] && n=2
  # the 4096 B runs overwrote the keys: the first run per node loads 100 B values again
  nl=$(load_once "$t" "100-again")
  # shellcheck disable=SC2046
  run "$t-get2t-$n" -w C --value-size 100 -c 2 -t 2 "${common[@]}" $nl $(node "$t")
done
for t in shm tcp tcp shm; do # PUT latency, one in flight
  n=1; [ -f "$out/$t-put-1.json" ] && n=2
  # shellcheck disable=SC2046
  run "$t-put-$n" -w put=100 --value-size 100 "${common[@]}" --no-load $(node "$t")
done
for n in 1 2; do # the RocksDB write of a PUT alone, same value size
  echo "== rocksdb-write-$n  (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  timeout 300 java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp "$jar" \
    "$root/benchmarks/scripts/RocksWriteAlone.java" 100 20000 "$out/rocks-$n" 2>/dev/null
done
echo "JSON in $out"
