#!/usr/bin/env bash
# rdmakv against redis-server and memcached, driven by the SAME load generator (rdmakv bench), on loopback only.
#
#   benchmarks/compare.sh                                   # defaults below: workload C, 50 connections, 10 pairs
#   benchmarks/compare.sh --workload get=0,put=100          # SET throughput
#   benchmarks/compare.sh --inflight 16                     # with pipelining
#   benchmarks/compare.sh --connections 1 --threads 1       # single-connection latency (look at the p50 ratio)
#   benchmarks/compare.sh --peers redis --pairs 12 --trial 5s
#   benchmarks/compare.sh --peers redis --peer-tool             # redis driven by redis-benchmark instead (second view)
#
# What it does:
#   1. installs redis-server and memcached from Debian's packages when missing (apt-get; needs root);
#   2. builds cli/target/rdmakv.jar when missing;
#   3. starts an rdmakv node, redis-server (io-threads 1, no persistence) and memcached on 127.0.0.1 ports of its own;
#   4. per peer: one warm-up trial per server (which also loads the keys) that is discarded, then PAIRS pairs of
#      short trials in ABBA order (rdmakv first in odd pairs, the peer first in even ones), so drift and warm-up
#      effects cancel instead of favouring whoever runs second;
#   5. prints each pair's throughput ratio rdmakv/peer and GET p50 ratio peer/rdmakv (> 1 means rdmakv is better
#      on both), each server's CPU time per operation (utime + stime from /proc/<pid>/stat over the trial / ops,
#      which no client can distort) and the 1-minute load average, then the median of the per-pair ratios with their
#      spread (min, max, and the interquartile range);
#   6. with --peer-tool, redis is driven by redis-benchmark (same connections, pipeline depth, threads, keys) instead
#      of rdmakv bench: the peer under its own best client (GET and SET workloads only; its p50 is the tool's);
#   7. renders the median pair's latency distributions side by side to $out/latency-<peer>.png (XChart, from the
#      .hgrm files each bench trial records) when benchmarks/target/benchmarks.jar is built.
# Every process it starts is stopped on exit. Results (one JSON per trial) stay in --out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

pairs=10
trial=3s
warmup=3s
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
peer_tool=no

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; echo "options: --pairs N --trial T --warmup T --workload W --distribution D --keys N --key-size N --value-size N"; echo "         --connections N --threads N --inflight N --clients N (rdmakv) --peers redis,memcached --transport tcp --get-mode M --out DIR --base-port P --peer-tool"; }

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
    --peer-tool) peer_tool=yes; shift ;;
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
rdmakv_pid=$!; pids+=($!); wait_port "$rdmakv_port" rdmakv "$!"
# The control port listens before the node serves; on a busy machine a client's HELLO then times out. Wait for READY.
for _ in $(seq 1 600); do
  grep -q '^READY ' "$work/rdmakv.log" 2>/dev/null && break
  kill -0 "$rdmakv_pid" 2>/dev/null || { echo "compare.sh: rdmakv exited during start-up; see $work/rdmakv.log" >&2; exit 1; }
  sleep 0.5
done

IFS=',' read -r -a peer_list <<<"$peers"
for peer in "${peer_list[@]}"; do
  case "$peer" in
    redis)
      redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --io-threads 1 \
        --protected-mode no >"$work/redis.log" 2>&1 &
      redis_pid=$!; pids+=($!); wait_port "$redis_port" redis "$!" ;;
    memcached)
      mc_user=(); [ "$(id -u)" -eq 0 ] && mc_user=(-u root)
      memcached -l 127.0.0.1 -p "$memcached_port" -U 0 -m 1024 -t 4 "${mc_user[@]}" >"$work/memcached.log" 2>&1 &
      memcached_pid=$!; pids+=($!); wait_port "$memcached_port" memcached "$!" ;;
    *) echo "compare.sh: unknown peer '$peer' (redis, memcached)" >&2; exit 2 ;;
  esac
done

# ---------------------------------------------------------------- trials
common=(--workload "$workload" --distribution "$distribution" --keys "$keys" --key-size "$key_size"
  --value-size "$value_size" --connections "$connections" --threads "$threads" --inflight "$inflight"
  --no-progress)

server_pid() { # store -> pid
  case "$1" in
    rdmakv) echo "$rdmakv_pid" ;;
    redis) echo "$redis_pid" ;;
    memcached) echo "$memcached_pid" ;;
  esac
}
cpu_ticks() { # pid -> utime + stime in clock ticks (fields 14 and 15 of /proc/<pid>/stat)
  awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# redis-benchmark against redis with the bench's shape: keys "k000" + 12 digits are bench's 16-byte keys.
tool_run() { # label -> prints the json path (with the fields the summary reads from a bench trial)
  local label="$1" json="$out/$1.json" n command load before after
  n=$(python3 -c "print(max(20000, int(float('${last_rate:-50000}') * float('${trial%s}'))))")
  case "$workload" in
    C|c|get=100*) command=(GET k000__rand_int__) ;;
    get=0,put=100) command=(SET k000__rand_int__ "$(head -c "$value_size" /dev/zero | tr '\0' v)") ;;
    *) echo "compare.sh: --peer-tool runs GET (--workload C) or SET (--workload get=0,put=100) only" >&2; exit 2 ;;
  esac
  load="$(cut -d' ' -f1 /proc/loadavg)"
  before="$(cpu_ticks "$redis_pid")"
  redis-benchmark -h 127.0.0.1 -p "$redis_port" -c "$connections" -P "$inflight" -n "$n" -r "$keys" \
    --threads "$threads" -q "${command[@]}" 2>&1 | tr '\r' '\n' >"$out/$label.txt"
  after="$(cpu_ticks "$redis_pid")"
  python3 - "$out/$label.txt" "$json" "$n" "$before" "$after" "$(getconf CLK_TCK)" "$load" <<'PY'
import json, re, sys
text, path, n, before, after, hz, load = sys.argv[1:]
body = open(text).read()
rate = re.findall(r"([0-9.]+) requests per second, p50=([0-9.]+) msec", body)
if not rate:
    sys.exit("compare.sh: no rate in redis-benchmark's output: " + body[-300:])
ops, p50 = float(rate[-1][0]), float(rate[-1][1]) * 1000
cpu = (int(after) - int(before)) / int(hz)
json.dump({"driver": "redis-benchmark", "throughput": ops, "operations": {"GET": {"p50Us": p50}},
           "serverCpuUsPerOp": cpu * 1e6 / int(n), "loadAverage": float(load)}, open(path, "w"), indent=1)
PY
  echo "$json"
}

rate_of() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['throughput'])" "$1"; }

trial_run() { # store label load(yes/no) -> prints the json path
  local store="$1" label="$2" load="$3" json="$out/$2.json" args=() la
  if [ "$store" = redis ] && [ "$peer_tool" = yes ] && [ "$load" = no ]; then
    tool_run "$label"
    return
  fi
  case "$store" in
    rdmakv) args=(--driver rdmakv -s "127.0.0.1:$rdmakv_port" --transport "$transport" --get-mode "$get_mode" --clients "$clients") ;;
    redis) args=(--driver resp -s "127.0.0.1:$redis_port") ;;
    memcached) args=(--driver memcached -s "127.0.0.1:$memcached_port") ;;
  esac
  if [ "$load" = yes ]; then args+=(--load --warmup "$warmup" --duration "$trial"); else args+=(--no-load --warmup "$warmup" --duration "$trial"); fi
  la="$(cut -d' ' -f1 /proc/loadavg)"
  if ! "$root/bin/rdmakv" bench "${args[@]}" "${common[@]}" --server-pid "$(server_pid "$store")" --json "$json" \
    --hgrm "$out/$label" >"$out/$label.txt" 2>&1; then
    echo "compare.sh: trial $label failed:" >&2
    tail -5 "$out/$label.txt" >&2
    exit 1
  fi
  python3 - "$json" "$la" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["loadAverage"] = float(sys.argv[2])
json.dump(r, open(sys.argv[1], "w"), indent=1)
PY
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
      a="$(trial_run rdmakv "pair$i-$peer-rdmakv" no)"; last_rate="$(rate_of "$a")"
      b="$(trial_run "$peer" "pair$i-$peer-$peer" no)"
    else
      b="$(trial_run "$peer" "pair$i-$peer-$peer" no)"
      a="$(trial_run rdmakv "pair$i-$peer-rdmakv" no)"; last_rate="$(rate_of "$a")"
    fi
    printf '%s\t%s\t%s\n' "$i" "$a" "$b" >>"$out/pairs-$peer.tsv"
  done
  python3 - "$peer" "$out/pairs-$peer.tsv" "$out/median-pair-$peer" <<'PY'
import json, statistics, sys
peer, table, median_out = sys.argv[1], sys.argv[2], sys.argv[3]
def load(path):
    with open(path) as f:
        return json.load(f)
def get_p50(r):
    op = r["operations"].get("GET") or next(iter(r["operations"].values()))
    return op["p50Us"]
def cpu(r):
    v = r.get("serverCpuUsPerOp")
    return float("nan") if v is None else v
rows = []
tool = "redis-benchmark" if any(load(l.split("\t")[2].strip()).get("driver") == "redis-benchmark"
                                for l in open(table)) else "rdmakv bench"
print(f"\n{peer} driven by {tool}; server CPU = utime+stime of the server process per operation (/proc), load = 1-min average")
print(f"{'pair':>4} {'rdmakv ops/s':>13} {peer + ' ops/s':>15} {'ratio':>6} {'rdmakv p50':>11} {peer + ' p50':>11} "
      f"{'p50 ratio':>9} {'CPU us/op rdmakv':>17} {peer:>9} {'CPU ratio':>9} {'load':>10}")
for line in open(table):
    i, a, b = line.split("\t")
    ra, rb = load(a.strip()), load(b.strip())
    t = ra["throughput"] / rb["throughput"] if rb["throughput"] else float("nan")
    l = get_p50(rb) / get_p50(ra) if get_p50(ra) else float("nan")
    c = cpu(rb) / cpu(ra) if cpu(ra) else float("nan")
    rows.append((t, l, c, int(i), cpu(ra), cpu(rb), ra.get("loadAverage", 0), rb.get("loadAverage", 0)))
    print(f"{i:>4} {ra['throughput']:>13,.0f} {rb['throughput']:>15,.0f} {t:>6.2f} {get_p50(ra):>9.1f}us "
          f"{get_p50(rb):>9.1f}us {l:>9.2f} {cpu(ra):>17.2f} {cpu(rb):>9.2f} {c:>9.2f} "
          f"{ra.get('loadAverage', 0):>4.1f} {rb.get('loadAverage', 0):>4.1f}")
def summary(values):
    v = sorted(x for x in values if x == x)
    if not v:
        return "n/a"
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0], v[0], v[0]]
    return f"median {statistics.median(v):.2f} (min {v[0]:.2f}, max {v[-1]:.2f}, IQR {q[0]:.2f}-{q[2]:.2f}, n={len(v)})"
loads = [x for r in rows for x in (r[6], r[7])]
print(f"throughput rdmakv/{peer}: " + summary([r[0] for r in rows]))
print(f"p50 latency {peer}/rdmakv: " + summary([r[1] for r in rows]) + "  (> 1: rdmakv is faster)")
print(f"server CPU per op {peer}/rdmakv: " + summary([r[2] for r in rows]) + "  (> 1: rdmakv uses less)"
      f"; medians rdmakv {statistics.median([r[4] for r in rows]):.2f} us, {peer} {statistics.median([r[5] for r in rows]):.2f} us")
print(f"load average during the trials: {min(loads):.1f}-{max(loads):.1f}")
ranked = sorted(rows, key=lambda r: r[0])
with open(median_out, "w") as f:
    f.write(str(ranked[(len(ranked) - 1) // 2][3]))
PY
  bench_jar="$root/benchmarks/target/benchmarks.jar"
  mp="$(cat "$out/median-pair-$peer")"
  hgrms=()
  for f in "$out/pair$mp-$peer-rdmakv"-*.hgrm; do [ -f "$f" ] && hgrms+=("rdmakv=$f"); done
  for f in "$out/pair$mp-$peer-$peer"-*.hgrm; do [ -f "$f" ] && hgrms+=("$peer=$f"); done
  if [ -f "$bench_jar" ] && [ ${#hgrms[@]} -ge 1 ]; then
    java -Djava.awt.headless=true -jar "$bench_jar" report --out "$out/latency-$peer.png" \
      --title "workload $workload, $connections connections x $inflight in flight: pair $mp (median ratio)" \
      "${hgrms[@]}" || echo "compare.sh: the latency chart was not rendered" >&2
  fi
done
