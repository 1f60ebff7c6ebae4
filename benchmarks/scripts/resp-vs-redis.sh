#!/usr/bin/env bash
# redis-benchmark GET and SET against an rdmakv node's RESP port and against redis-server (no persistence), in one
# sitting, alternating which goes first (pairs: rdmakv-redis, redis-rdmakv, ...). Prints one line per run, then per
# shape and operation the ratio rdmakv / redis of each pair, with the node CPU per operation of each side.
#
#   benchmarks/scripts/resp-vs-redis.sh [--pairs 3] [--n-pipelined 200000] [--n-single 20000] [--out DIR]
#
# Needs bin/rdmakv's jar (mvn -B -q -pl cli -am package -DskipTests), redis-server and redis-benchmark on PATH.
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
rdmakv_port=16379; redis_port=16380
mkdir -p "$out"
"$root/bin/rdmakv" server --data-dir "$out/node" --port 17400 --data-port 17401 --resp-port "$rdmakv_port" \
  --pool-size 256MiB >"$out/node.log" 2>&1 &
node_pid=$!
redis-server --port "$redis_port" --save '' --appendonly no --daemonize no >"$out/redis.log" 2>&1 &
redis_pid=$!
trap 'kill $node_pid $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q '^READY' "$out/node.log" 2>/dev/null && break; sleep 1; done
grep -q '^READY' "$out/node.log" || { echo "the node did not start: $out/node.log" >&2; exit 1; }
# The node's JVM is the java child of the launcher.
jvm_pid=$(pgrep -P "$node_pid" java || echo "$node_pid")
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

run() { # side port pid shape(c,P,n)
  local side=$1 port=$2 pid=$3 c=$4 p=$5 n=$6
  local before after
  before=$(cpu_ticks "$pid")
  redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -n "$n" -c "$c" -P "$p" -r 100000 -d 100 --csv \
    >"$out/$side-c$c-P$p-$run_id.csv"
  after=$(cpu_ticks "$pid")
  python3 - "$out/$side-c$c-P$p-$run_id.csv" "$side" "$c" "$p" "$n" "$((after - before))" "$hz" <<'PY'
import csv, sys
path, side, c, p, n, ticks, hz = sys.argv[1:]
rows = {r[0]: float(r[1]) for r in csv.reader(open(path)) if r and r[0] in ("SET", "GET")}
us_per_op = int(ticks) / int(hz) * 1e6 / (2 * int(n))
print(f"{side:6s} c={c:>2} P={p:>2} SET {rows['SET']:>10.0f}/s GET {rows['GET']:>10.0f}/s  server CPU {us_per_op:.1f} us/op")
PY
}
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "out: $out; load before: $load"
run_id=0
for pair in $(seq 1 "$pairs"); do
  for shape in "50 16 $n_pipe" "1 1 $n_single"; do
    set -- $shape
    run_id=$((run_id + 1))
    if [ $((pair % 2)) -eq 1 ]; then
      run rdmakv $rdmakv_port "$jvm_pid" "$@"; run redis $redis_port "$redis_pid" "$@"
    else
      run redis $redis_port "$redis_pid" "$@"; run rdmakv $rdmakv_port "$jvm_pid" "$@"
    fi
  done
done | tee "$out/runs.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/runs.txt" <<'PY'
import re, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\w+)\s+c=\s*(\d+) P=\s*(\d+) SET\s+(\d+)/s GET\s+(\d+)/s\s+server CPU ([\d.]+)", line)
    if m:
        runs[(m[2], m[3], m[1])].append((float(m[4]), float(m[5]), float(m[6])))
for c, p in sorted({(k[0], k[1]) for k in runs}, key=lambda s: -int(s[0])):
    a, b = runs[(c, p, "rdmakv")], runs[(c, p, "redis")]
    for i, op in ((0, "SET"), (1, "GET")):
        ratios = sorted(x[i] / y[i] for x, y in zip(a, b))
        print(f"c={c} P={p} {op}: rdmakv/redis {ratios[len(ratios)//2]:.2f}x (pairs {', '.join(f'{r:.2f}' for r in ratios)})"
              f"; server CPU us/op rdmakv {sum(x[2] for x in a)/len(a):.1f}, redis {sum(y[2] for y in b)/len(b):.1f}")
PY
