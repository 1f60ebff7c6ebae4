#!/usr/bin/env bash
# rdmakv against redis-server and memcached, driven by the SAME load generator (rdmakv bench), on loopback only.
#
#   benchmarks/compare.sh                                   # defaults below: workload C, 50 connections, 10 pairs
#   benchmarks/compare.sh --workload get=0,put=100          # SET throughput
#   benchmarks/compare.sh --inflight 16                     # with pipelining
#   benchmarks/compare.sh --connections 1 --threads 1       # single-connection latency (look at the p50 ratio)
#   benchmarks/compare.sh --peers redis --pairs 12 --trial 5s
#
# What it does:
#   1. installs redis-server and memcached from Debian's packages when missing (apt-get; needs root);
#   2. builds cli/target/rdmakv.jar when missing;
#   3. starts an rdmakv node, redis-server (io-threads 1, no persistence) and memcached on 127.0.0.1 ports of its own;
#   4. per peer: one warm-up trial per server (which also loads the keys) that is discarded, then PAIRS pairs of
#      short trials in ABBA order (rdmakv first in odd pairs, the peer first in even ones), so drift and warm-up
#      effects cancel instead of favouring whoever runs second;
#   5. prints each pair's throughput ratio rdmakv/peer and GET p50 ratio peer/rdmakv (> 1 means rdmakv is better
#      on both), then the median of the per-pair ratios with their spread (min, max, and the interquartile range).
# Every process it starts is stopped on exit. Results (one JSON per trial) stay in --out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

pairs=10
trial=3s
warmup=1s
workload=C
distribution=uniform
keys=100000
key_size=16
value_size=100
connections=50
threads=2
inflight=1
clients=1
peers="redis,memcached"
transport=tcp
get_mode=auto
out=""
base_port=17600

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; echo "options: --pairs N --trial T --warmup T --workload W --distribution D --keys N --key-size N --value-size N"; echo "         --connections N --threads N --inflight N --clients N (rdmakv) --peers redis,memcached --transport tcp --get-mode M --out DIR --base-port P"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs="$2"; shift 2 ;;
    --trial) trial="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --workload) workload="$2"; shift 2 ;;
    --distribution) distribution="$2"; shift 2 ;;
    --keys) keys="$2"; shift 2 ;;
    --key-size) key_size="$2"; shift 2 ;;
    --value-size) value_size="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --inflight) inflight="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --peers) peers="$2"; shift 2 ;;
    --transport) transport="$2"; shift 2 ;;
    --get-mode) get_mode="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --base-port) base_port="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$pairs" -lt 10 ]; then
  echo "compare.sh: --pairs $pairs: at least 10 pairs are needed for a median with a meaningful spread" >&2
  exit 2
fi

# ---------------------------------------------------------------- prerequisites
need_install=()
command -v redis-server >/dev/null 2>&1 || need_install+=(redis-server)
command -v memcached >/dev/null 2>&1 || need_install+=(memcached)
if [ ${#need_install[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "compare.sh: ${need_install[*]} missing; install as root: apt-get install -y ${need_install[*]}" >&2
    exit 2
  fi
  echo "installing ${need_install[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_install[@]}" >/dev/null
fi
for tool in python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "compare.sh: $tool is needed for the statistics" >&2; exit 2; }
done
if [ ! -f "$root/cli/target/rdmakv.jar" ]; then
  echo "building cli/target/rdmakv.jar"
  (cd "$root" && mvn -B -q -pl cli -am package -DskipTests)
fi

work="$(mktemp -d -t rdmakv-compare-XXXXXX)"
out="${out:-$work/results}"
mkdir -p "$out"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work/data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_port() { # port name pid
  for _ in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    kill -0 "$3" 2>/dev/null || { echo "compare.sh: $2 exited during start-up; see $work/$2.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "compare.sh: $2 did not listen on port $1 within 30 s; see $work/$2.log" >&2
  exit 1
}

# ---------------------------------------------------------------- servers (loopback only)
rdmakv_port=$base_port
redis_port=$((base_port + 10))
memcached_port=$((base_port + 20))

"$root/bin/rdmakv" server --host 127.0.0.1 --control-port "$rdmakv_port" --data-port $((rdmakv_port + 1)) \
  --data-dir "$work/data" --pool-size 1GiB --pin BEST_EFFORT --transport "$transport" >"$work/rdmakv.log" 2>&1 &
pids+=($!); wait_port "$rdmakv_port" rdmakv "$!"

IFS=',' read -r -a peer_list <<<"$peers"
for peer in "${peer_list[@]}"; do
  case "$peer" in
    redis)
      redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --io-threads 1 \
        --protected-mode no >"$work/redis.log" 2>&1 &
      pids+=($!); wait_port "$redis_port" redis "$!" ;;
    memcached)
      mc_user=(); [ "$(id -u)" -eq 0 ] && mc_user=(-u root)
      memcached -l 127.0.0.1 -p "$memcached_port" -U 0 -m 1024 -t 4 "${mc_user[@]}" >"$work/memcached.log" 2>&1 &
      pids+=($!); wait_port "$memcached_port" memcached "$!" ;;
    *) echo "compare.sh: unknown peer '$peer' (redis, memcached)" >&2; exit 2 ;;
  esac
done

# ---------------------------------------------------------------- trials
common=(--workload "$workload" --distribution "$distribution" --keys "$keys" --key-size "$key_size"
  --value-size "$value_size" --connections "$connections" --threads "$threads" --inflight "$inflight"
  --no-progress)

trial_run() { # store label load(yes/no) -> prints the json path
  local store="$1" label="$2" load="$3" json="$out/$2.json" args=()
  case "$store" in
    rdmakv) args=(--driver rdmakv -s "127.0.0.1:$rdmakv_port" --transport "$transport" --get-mode "$get_mode" --clients "$clients") ;;
    redis) args=(--driver resp -s "127.0.0.1:$redis_port") ;;
    memcached) args=(--driver memcached -s "127.0.0.1:$memcached_port") ;;
  esac
  if [ "$load" = yes ]; then args+=(--load --warmup "$warmup" --duration "$trial"); else args+=(--no-load --warmup "$warmup" --duration "$trial"); fi
  if ! "$root/bin/rdmakv" bench "${args[@]}" "${common[@]}" --json "$json" >"$out/$label.txt" 2>&1; then
    echo "compare.sh: trial $label failed:" >&2
    tail -5 "$out/$label.txt" >&2
    exit 1
  fi
  echo "$json"
}

echo "rdmakv vs ${peers}: workload $workload, $distribution over $keys keys, value $value_size B, $connections connections," \
  "$threads threads, $inflight in flight; $pairs ABBA pairs of $trial trials (after $warmup warm-up each); results in $out"
trial_run rdmakv warmup-rdmakv yes >/dev/null
for peer in "${peer_list[@]}"; do
  trial_run "$peer" "warmup-$peer" yes >/dev/null
  : >"$out/pairs-$peer.tsv"
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then
      a="$(trial_run rdmakv "pair$i-$peer-rdmakv" no)"; b="$(trial_run "$peer" "pair$i-$peer-$peer" no)"
    else
      b="$(trial_run "$peer" "pair$i-$peer-$peer" no)"; a="$(trial_run rdmakv "pair$i-$peer-rdmakv" no)"
    fi
    printf '%s\t%s\t%s\n' "$i" "$a" "$b" >>"$out/pairs-$peer.tsv"
  done
  python3 - "$peer" "$out/pairs-$peer.tsv" <<'PY'
import json, statistics, sys
peer, table = sys.argv[1], sys.argv[2]
def load(path):
    with open(path) as f:
        return json.load(f)
def get_p50(r):
    op = r["operations"].get("GET") or next(iter(r["operations"].values()))
    return op["p50Us"]
rows = []
print(f"\n{'pair':>4} {'rdmakv ops/s':>14} {peer + ' ops/s':>16} {'ratio':>7} {'rdmakv p50':>11} {peer + ' p50':>12} {'p50 ratio':>9}")
for line in open(table):
    i, a, b = line.split("\t")
    ra, rb = load(a.strip()), load(b.strip())
    t = ra["throughput"] / rb["throughput"] if rb["throughput"] else float("nan")
    l = get_p50(rb) / get_p50(ra) if get_p50(ra) else float("nan")
    rows.append((t, l))
    print(f"{i:>4} {ra['throughput']:>14,.0f} {rb['throughput']:>16,.0f} {t:>7.2f} {get_p50(ra):>9.1f}us {get_p50(rb):>10.1f}us {l:>9.2f}")
def summary(values):
    v = sorted(values)
    q = statistics.quantiles(v, n=4)
    return f"median {statistics.median(v):.2f} (min {v[0]:.2f}, max {v[-1]:.2f}, IQR {q[0]:.2f}-{q[2]:.2f}, n={len(v)})"
print(f"throughput rdmakv/{peer}: " + summary([r[0] for r in rows]))
print(f"p50 latency {peer}/rdmakv: " + summary([r[1] for r in rows]) + "  (> 1: rdmakv is faster)")
PY
done
