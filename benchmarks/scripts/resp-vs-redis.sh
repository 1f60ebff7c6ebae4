#!/usr/bin/env bash
# redis-benchmark GET and SET against an rdmakv node's RESP port, against redis-server without persistence (redis)
# and against redis-server with AOF without fsync (redis-aof: appendonly yes, appendfsync no), in one sitting, at
# 50 x 16, 50 x 1 and 1 x 1 (clients x pipeline), rotating which side goes first. Prints one line per run, then per
# shape and operation the ratio rdmakv / redis and rdmakv / redis-aof of each round (median and range), with the server
# CPU per operation of each side (from /proc: utime + stime of the process over the run / operations). On a shared
# host CPU per operation is the steadier figure: throughput moves with the other processes' load.
#
#   benchmarks/scripts/resp-vs-redis.sh [--pairs 3] [--n-pipelined 200000] [--n-single 20000] [--out DIR]
#
# Needs bin/rdmakv's jar (mvn -B -q -pl cli -am package -DskipTests; RDMAKV_JAR picks another), redis-server and
# redis-benchmark on PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pairs=3; n_pipe=200000; n_single=20000; out="$(mktemp -d /tmp/resp-vs-redis.XXXXXX)"
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs="$2"; shift 2 ;;
    --n-pipelined) n_pipe="$2"; shift 2 ;;
    --n-single) n_single="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
rdmakv_port=16379; redis_port=16380; aof_port=16381
mkdir -p "$out"
"$root/bin/rdmakv" server --data-dir "$out/node" --port 17400 --data-port 17401 --resp-port "$rdmakv_port" \
  --pool-size 256MiB >"$out/node.log" 2>&1 &
node_pid=$!
redis-server --port "$redis_port" --save '' --appendonly no --daemonize no >"$out/redis.log" 2>&1 &
redis_pid=$!
mkdir -p "$out/aof"
redis-server --port "$aof_port" --save '' --appendonly yes --appendfsync no --dir "$out/aof" --daemonize no \
  >"$out/redis-aof.log" 2>&1 &
aof_pid=$!
trap 'kill $node_pid $redis_pid $aof_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q '^READY' "$out/node.log" 2>/dev/null && break; sleep 1; done
grep -q '^READY' "$out/node.log" || { echo "the node did not start: $out/node.log" >&2; exit 1; }
# The node's JVM is the java child of the launcher.
jvm_pid=$(pgrep -P "$node_pid" java || echo "$node_pid")
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

run() { # side port pid shape(c,P,n): SET then GET, each with the server's CPU over its own run
  local side=$1 port=$2 pid=$3 c=$4 p=$5 n=$6
  local before after op line=""
  for op in set get; do
    before=$(cpu_ticks "$pid")
    redis-benchmark -h 127.0.0.1 -p "$port" -t "$op" -n "$n" -c "$c" -P "$p" -r 100000 -d 100 --csv \
      2>/dev/null >"$out/$side-c$c-P$p-$op-$run_id.csv"
    after=$(cpu_ticks "$pid")
    line="$line $(python3 - "$out/$side-c$c-P$p-$op-$run_id.csv" "$op" "$n" "$((after - before))" "$hz" <<'PY'
import csv, sys
path, op, n, ticks, hz = sys.argv[1:]
rate = [float(r[1]) for r in csv.reader(open(path)) if r and r[0] == op.upper()][0]
print(f"{op.upper()} {rate:>10.0f}/s {int(ticks) / int(hz) * 1e6 / int(n):5.1f} us/op")
PY
)"
  done
  printf '%-9s c=%2s P=%2s%s\n' "$side" "$c" "$p" "$line"
}
# Warm-up, not recorded: the node's JIT compiles its paths (the first run of a fresh JVM is several times slower).
for shape in "50 16 $n_pipe" "50 1 $n_single"; do
  set -- $shape
  redis-benchmark -h 127.0.0.1 -p "$rdmakv_port" -t set,get -n "$3" -c "$1" -P "$2" -r 100000 -d 100 -q >/dev/null 2>&1
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "out: $out; load before: $load"
run_id=0
for pair in $(seq 1 "$pairs"); do
  for shape in "50 16 $n_pipe" "50 1 $((n_single * 5))" "1 1 $n_single"; do
    set -- $shape
    run_id=$((run_id + 1))
    case $((pair % 3)) in
      1) run rdmakv $rdmakv_port "$jvm_pid" "$@"; run redis $redis_port "$redis_pid" "$@"
         run redis-aof $aof_port "$aof_pid" "$@" ;;
      2) run redis $redis_port "$redis_pid" "$@"; run redis-aof $aof_port "$aof_pid" "$@"
         run rdmakv $rdmakv_port "$jvm_pid" "$@" ;;
      0) run redis-aof $aof_port "$aof_pid" "$@"; run rdmakv $rdmakv_port "$jvm_pid" "$@"
         run redis $redis_port "$redis_pid" "$@" ;;
    esac
  done
done | tee "$out/runs.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/runs.txt" <<'PY'
import re, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"([\w-]+)\s+c=\s*(\d+) P=\s*(\d+)\s+SET\s+(\d+)/s\s+([\d.]+) us/op GET\s+(\d+)/s\s+([\d.]+) us/op", line)
    if m:
        runs[(m[2], m[3], m[1])].append((float(m[4]), float(m[6]), float(m[5]), float(m[7])))
med = lambda v: sorted(v)[len(v) // 2]
for c, p in sorted({(k[0], k[1]) for k in runs}, key=lambda s: (-int(s[0]), -int(s[1]))):
    a = runs[(c, p, "rdmakv")]
    for i, op in ((0, "SET"), (1, "GET")):
        parts = []
        for other in ("redis", "redis-aof"):
            b = runs[(c, p, other)]
            ratios = sorted(x[i] / y[i] for x, y in zip(a, b))
            parts.append(f"/{other} {med(ratios):.2f}x ({', '.join(f'{r:.2f}' for r in ratios)})")
        cpu = ", ".join(f"{s} {med([x[i + 2] for x in runs[(c, p, s)]]):.1f}" +
                        f" ({min(x[i + 2] for x in runs[(c, p, s)]):.1f}-{max(x[i + 2] for x in runs[(c, p, s)]):.1f})"
                        for s in ("rdmakv", "redis", "redis-aof"))
        print(f"c={c} P={p} {op}: rdmakv " + "; ".join(parts) + f"; server CPU us/{op} median (range): {cpu}")
PY
