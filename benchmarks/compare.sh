#!/usr/bin/env bash
# rdmakv against redis-server and memcached, driven by the SAME load generator (rdmakv bench), on loopback only.
#
#   benchmarks/compare.sh                                   # defaults below: workload C, 50 connections, 10 pairs
#   benchmarks/compare.sh --workload get=0,put=100          # SET throughput
#   benchmarks/compare.sh --inflight 16                     # with pipelining
#   benchmarks/compare.sh --connections 1 --threads 1       # single-connection latency (look at the p50 ratio)
#   benchmarks/compare.sh --peers redis --pairs 12 --trial 5s
#   benchmarks/compare.sh --peers redis --peer-tool             # redis driven by redis-benchmark instead (second view)
#   benchmarks/compare.sh --ycsb A --threads 16                 # YCSB A: rdmakv vs redis vs redis-aof, 5 ABBA pairs
#   benchmarks/compare.sh --ycsb-check --threads 16             # the YCSB redis binding vs redis-benchmark (same shape)
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
# With --ycsb A|B|C|F the load generator is YCSB (core 0.17.0, benchmarks/ycsb, built to benchmarks/ycsb/target/ycsb.jar
# when missing) instead: the rdmakv node, redis (--save '' --appendonly no) and redis-aof (--appendonly yes
# --appendfsync no); each store is loaded once (YCSB -load, --records records of 10 fields x 100 B stored as one value),
# each has one discarded warm-up run (--warmup), then --pairs (default 5) pairs of --trial runs (default 15s,
# maxexecutiontime) in ABBA order (rdmakv, redis, redis-aof in odd pairs; the reverse in even ones); it prints per store
# the median and min-max throughput, each operation's p50/p99, the server's and the YCSB JVM's CPU per operation, and
# the ratios rdmakv/redis and rdmakv/redis-aof per pair with their median and spread. --threads = YCSB threads
# (default 1 here). --ycsb-check instead runs YCSB C through the redis binding against redis and redis-benchmark GETs
# of a value of the record's size (1,122 B) at the same shape (connections = --threads, 1 in flight), ABBA, so one sees
# whether YCSB's side limits the figures. --ycsb-steady S also reports each store's throughput after the first S
# seconds of every run (from YCSB's status line each second): each run is a new JVM that compiles its client's code
# while it runs (the rdmakv binding compiles about twice the methods Jedis does), so the first seconds measure the JIT
# as much as the store; a service that embeds a client runs warm.
# Every process it starts is stopped on exit. Results (one JSON per trial) stay in --out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

pairs=10
ycsb_steady=0
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
ycsb=""
ycsb_check=no
records=100000
threads_set=no
trial_set=no
pairs_set=no
warmup_set=no

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; echo "options: --pairs N --trial T --warmup T --workload W --distribution D --keys N --key-size N --value-size N"; echo "         --connections N --threads N --inflight N --clients N (rdmakv) --peers redis,memcached --transport tcp --get-mode M --out DIR --base-port P --peer-tool"; echo "         --ycsb A|B|C|F --ycsb-check --records N --ycsb-steady S (with --threads --pairs --trial --warmup --transport --out --base-port)"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs="$2"; pairs_set=yes; shift 2 ;;
    --trial) trial="$2"; trial_set=yes; shift 2 ;;
    --warmup) warmup="$2"; warmup_set=yes; shift 2 ;;
    --workload) workload="$2"; shift 2 ;;
    --distribution) distribution="$2"; shift 2 ;;
    --keys) keys="$2"; shift 2 ;;
    --key-size) key_size="$2"; shift 2 ;;
    --value-size) value_size="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --threads) threads="$2"; threads_set=yes; shift 2 ;;
    --inflight) inflight="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --peers) peers="$2"; shift 2 ;;
    --transport) transport="$2"; shift 2 ;;
    --get-mode) get_mode="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --base-port) base_port="$2"; shift 2 ;;
    --peer-tool) peer_tool=yes; shift ;;
    --ycsb) ycsb="$(tr '[:lower:]' '[:upper:]' <<<"$2")"; shift 2 ;;
    --ycsb-steady) ycsb_steady="$2"; shift 2 ;;
    --ycsb-check) ycsb_check=yes; ycsb=C; shift ;;
    --records) records="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ -n "$ycsb" ]; then
  case "$ycsb" in A|B|C|F) ;; *) echo "compare.sh: --ycsb $ycsb: A, B, C or F (E needs scans, which rdmakv has not)" >&2; exit 2 ;; esac
  [ "$pairs_set" = yes ] || pairs=5
  [ "$trial_set" = yes ] || trial=15s
  [ "$warmup_set" = yes ] || warmup=5s
  [ "$threads_set" = yes ] || threads=1
  if [ "$pairs" -lt 1 ]; then echo "compare.sh: --pairs $pairs: at least 1" >&2; exit 2; fi
elif [ "$pairs" -lt 10 ]; then
  echo "compare.sh: --pairs $pairs: at least 10 pairs are needed for a median with a meaningful spread" >&2
  exit 2
fi

# ---------------------------------------------------------------- prerequisites
need_install=()
command -v redis-server >/dev/null 2>&1 || need_install+=(redis-server)
[ -n "$ycsb" ] || command -v memcached >/dev/null 2>&1 || need_install+=(memcached)
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
if [ -n "$ycsb" ] && [ ! -f "$root/benchmarks/ycsb/target/ycsb.jar" ]; then
  echo "building benchmarks/ycsb/target/ycsb.jar"
  (cd "$root" && mvn -B -q -pl benchmarks/ycsb -am package -DskipTests)
fi

work="$(mktemp -d -t rdmakv-compare-XXXXXX)"
out="${out:-$work/results}"
mkdir -p "$out"
pids=()
ycsb_pid=""
cleanup() {
  [ -z "$ycsb_pid" ] || kill "$ycsb_pid" 2>/dev/null || true
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work/data" "$work/redis-aof"
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

cpu_ticks() { # pid -> utime + stime in clock ticks (fields 14 and 15 of /proc/<pid>/stat)
  awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

rate_of() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['throughput'])" "$1"; }

# ---------------------------------------------------------------- servers (loopback only)
rdmakv_port=$base_port
redis_port=$((base_port + 10))
memcached_port=$((base_port + 20))

if [ "$ycsb_check" = no ]; then
  # RDMAKV_SERVER_ARGS: extra flags for the node (e.g. "-S tcp.ioUring=true" to compare a node setting).
  # shellcheck disable=SC2086
  "$root/bin/rdmakv" server --host 127.0.0.1 --control-port "$rdmakv_port" --data-port $((rdmakv_port + 1)) \
    --data-dir "$work/data" --pool-size 1GiB --pin BEST_EFFORT --transport "$transport" ${RDMAKV_SERVER_ARGS:-} \
    >"$work/rdmakv.log" 2>&1 &
  rdmakv_pid=$!; pids+=($!); wait_port "$rdmakv_port" rdmakv "$!"
  # The control port listens before the node serves; on a busy machine a client's HELLO then times out. Wait for READY.
  for _ in $(seq 1 600); do
    grep -q '^READY ' "$work/rdmakv.log" 2>/dev/null && break
    kill -0 "$rdmakv_pid" 2>/dev/null || { echo "compare.sh: rdmakv exited during start-up; see $work/rdmakv.log" >&2; exit 1; }
    sleep 0.5
  done
fi

# ---------------------------------------------------------------- YCSB (--ycsb, --ycsb-check)
if [ -n "$ycsb" ]; then
  ycsb_jar="$root/benchmarks/ycsb/target/ycsb.jar"
  workload_file="$root/benchmarks/ycsb/workloads/workload$(tr '[:upper:]' '[:lower:]' <<<"$ycsb")"
  aof_port=$((redis_port + 1))
  secs="${trial%s}"
  warmup_secs="${warmup%s}"
  load_threads=4
  # The JDK flags the client needs (bin/rdmakv's): Agrona and Netty reach into the JDK.
  # RDMAKV_YCSB_JAVA_OPTS: extra JVM flags for every YCSB JVM (e.g. a client property to compare before and after).
  # shellcheck disable=SC2206
  ycsb_java=(java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true -XX:MaxDirectMemorySize=1g
    ${RDMAKV_YCSB_JAVA_OPTS:-} -cp "$ycsb_jar" site.ycsb.Client)
  # Both redis servers are the same binary and settings but for persistence; io-threads 1 as above.
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --io-threads 1 \
    --protected-mode no --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!; pids+=($!); wait_port "$redis_port" redis "$!"
  if [ "$ycsb_check" = no ]; then
    mkdir -p "$work/redis-aof"
    redis-server --port "$aof_port" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync no --io-threads 1 \
      --protected-mode no --dir "$work/redis-aof" >"$work/redis-aof.log" 2>&1 &
    aof_pid=$!; pids+=($!); wait_port "$aof_port" redis-aof "$!"
  fi

  ycsb_run() { # store label mode(load|run) seconds -> $out/<label>.json (and .txt: YCSB's report, .err: its log)
    local store="$1" label="$2" mode="$3" run_secs="$4" server args=() before after start="" last=0 rc=0 la
    case "$store" in
      rdmakv) server="$rdmakv_pid"; args=(-db io.rdmakv.ycsb.RdmakvClient -p "rdmakv.seed=127.0.0.1:$rdmakv_port"
                -p "rdmakv.transport=$transport") ;;
      redis) server="$redis_pid"; args=(-db io.rdmakv.ycsb.RedisClient -p "redis.port=$redis_port") ;;
      redis-aof) server="$aof_pid"; args=(-db io.rdmakv.ycsb.RedisClient -p "redis.port=$aof_port") ;;
    esac
    args+=(-P "$workload_file" -p "recordcount=$records" -p measurementtype=hdrhistogram
      -p hdrhistogram.percentiles=50,99)
    if [ "$mode" = load ]; then
      args=(-load "${args[@]}" -threads "$load_threads")
    else
      args=(-t "${args[@]}" -threads "$threads" -p "maxexecutiontime=$run_secs")
      # --ycsb-steady: YCSB's status line every second (standard error), for the throughput after its first S seconds
      [ "$ycsb_steady" != 0 ] && args+=(-s -p status.interval=1)
    fi
    la="$(cut -d' ' -f1 /proc/loadavg)"
    before="$(cpu_ticks "$server")"
    "${ycsb_java[@]}" "${args[@]}" >"$out/$label.txt" 2>"$out/$label.err" &
    ycsb_pid=$!
    # The YCSB JVM's own CPU, sampled from /proc while it runs: from "Starting test." (workload built, before the
    # threads connect) to its last sample before exit; start-up and JIT warm-up inside that window count.
    while kill -0 "$ycsb_pid" 2>/dev/null; do
      last="$(cpu_ticks "$ycsb_pid" 2>/dev/null || echo "$last")"
      if [ -z "$start" ] && grep -q '^Starting test' "$out/$label.err" 2>/dev/null; then start="$last"; fi
      sleep 0.2
    done
    wait "$ycsb_pid" || rc=$?
    ycsb_pid=""
    after="$(cpu_ticks "$server")"
    if [ "$rc" -ne 0 ] || ! grep -q '^\[OVERALL\], Throughput' "$out/$label.txt"; then
      echo "compare.sh: YCSB $label failed (exit $rc):" >&2
      tail -15 "$out/$label.err" >&2
      exit 1
    fi
    python3 - "$out/$label.txt" "$out/$label.json" "$store" "$before" "$after" "${start:-0}" "$last" \
      "$(getconf CLK_TCK)" "$la" "$out/$label.err" "$ycsb_steady" <<'PY'
import json, re, sys
text, path, store, before, after, start, last, hz, load, err, steady = sys.argv[1:]
hz = int(hz)
r = {"store": store, "operations": {}, "returns": {}, "loadAverage": float(load)}
# The throughput after the first `steady` seconds, from the status lines ("... 7 sec: 81234 operations; ..."): the
# trial's JVM compiles the client's code while it runs, so the first seconds measure the JIT as much as the store.
if int(steady) > 0:
    marks = [(int(t), int(n)) for t, n in re.findall(r" (\d+) sec: (\d+) operations;", open(err).read())]
    after_skip = [m for m in marks if m[0] >= int(steady)]
    if len(after_skip) >= 2 and after_skip[-1][0] > after_skip[0][0]:
        r["steadyThroughput"] = (after_skip[-1][1] - after_skip[0][1]) / (after_skip[-1][0] - after_skip[0][0])
for line in open(text):
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 3 or not parts[0].startswith("["):
        continue
    section, metric, value = parts[0][1:-1], parts[1], parts[2]
    if section == "OVERALL":
        if metric == "Throughput(ops/sec)": r["throughput"] = float(value)
        if metric == "RunTime(ms)": r["runtimeMs"] = float(value)
    elif section == "CLEANUP" or section.endswith("-FAILED"):
        continue
    elif metric.startswith("Return="):
        r["returns"][section + " " + metric[len("Return="):]] = int(value)
    else:
        op = r["operations"].setdefault(section, {})
        if metric == "Operations": op["count"] = int(value)
        if metric == "50thPercentileLatency(us)": op["p50Us"] = float(value)
        if metric == "99thPercentileLatency(us)": op["p99Us"] = float(value)
r["operations"] = {k: v for k, v in r["operations"].items() if "count" in v}  # drops the GC sections
ops = r["throughput"] * r["runtimeMs"] / 1000
r["operationCount"] = ops
r["serverCpuUsPerOp"] = (int(after) - int(before)) / hz * 1e6 / ops if ops else None
r["ycsbCpuUsPerOp"] = (int(last) - int(start)) / hz * 1e6 / ops if ops and int(start) else None
json.dump(r, open(path, "w"), indent=1)
PY
  }

  if [ "$ycsb_check" = yes ]; then
    # ---------------- the YCSB side is not the bottleneck: its redis binding against redis-benchmark, same shape
    value_bytes=1122 # a record of 10 fields x 100 B in RecordCodec's encoding
    echo "YCSB check: YCSB C through the redis binding vs redis-benchmark GET of $value_bytes B, $threads connections" \
      "x 1 in flight, $records keys, against one redis (--save '' --appendonly no); $pairs ABBA pairs of $trial runs;" \
      "results in $out"
    ycsb_run redis load-redis load 0
    # redis-benchmark's keys: key:<12 digits>, each holding a value of the record's size.
    python3 - "$records" "$value_bytes" <<'PY' | redis-cli -p "$redis_port" --pipe >"$out/load-redis-benchmark.txt"
import sys
n, size = int(sys.argv[1]), int(sys.argv[2])
value = b"v" * size
out = sys.stdout.buffer
for i in range(n):
    key = b"key:%012d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, size, value))
PY
    tool_check() { # label -> $out/<label>.json
      local label="$1" n before after la
      n=$(python3 -c "print(max(20000, int(float('${last_rate:-20000}') * float('$secs'))))")
      la="$(cut -d' ' -f1 /proc/loadavg)"
      before="$(cpu_ticks "$redis_pid")"
      redis-benchmark -h 127.0.0.1 -p "$redis_port" -c "$threads" -P 1 -n "$n" -r "$records" -q \
        GET key:__rand_int__ 2>&1 | tr '\r' '\n' >"$out/$label.txt"
      after="$(cpu_ticks "$redis_pid")"
      python3 - "$out/$label.txt" "$out/$label.json" "$n" "$before" "$after" "$(getconf CLK_TCK)" "$la" <<'PY'
import json, re, sys
text, path, n, before, after, hz, load = sys.argv[1:]
rate = re.findall(r"([0-9.]+) requests per second, p50=([0-9.]+) msec", open(text).read())
if not rate:
    sys.exit("compare.sh: no rate in redis-benchmark's output")
json.dump({"store": "redis-benchmark", "throughput": float(rate[-1][0]),
           "operations": {"GET": {"p50Us": float(rate[-1][1]) * 1000}},
           "serverCpuUsPerOp": (int(after) - int(before)) / int(hz) * 1e6 / int(n), "loadAverage": float(load)},
          open(path, "w"), indent=1)
PY
    }
    ycsb_run redis warmup-ycsb run "$warmup_secs"
    : >"$out/pairs-check.tsv"
    for i in $(seq 1 "$pairs"); do
      if [ $((i % 2)) -eq 1 ]; then
        ycsb_run redis "pair$i-ycsb" run "$secs"; last_rate="$(rate_of "$out/pair$i-ycsb.json")"
        tool_check "pair$i-redis-benchmark"
      else
        tool_check "pair$i-redis-benchmark"
        ycsb_run redis "pair$i-ycsb" run "$secs"; last_rate="$(rate_of "$out/pair$i-ycsb.json")"
      fi
      printf '%s\t%s\t%s\n' "$i" "$out/pair$i-ycsb.json" "$out/pair$i-redis-benchmark.json" >>"$out/pairs-check.tsv"
    done
    python3 - "$out/pairs-check.tsv" <<'PY'
import json, statistics, sys
rows = [(int(i), json.load(open(a)), json.load(open(b.strip()))) for i, a, b in (l.split("\t") for l in open(sys.argv[1]))]
def f(v, spec):
    return "n/a" if v is None else format(v, spec)
print(f"\n{'pair':>4} {'YCSB+redis binding ops/s':>25} {'redis-benchmark GET/s':>22} {'ratio':>6} "
      f"{'YCSB read p50':>13} {'tool p50':>9} {'redis CPU us/op':>16} {'(tool)':>7} {'YCSB JVM CPU us/op':>19} {'load':>9}")
for i, y, t in rows:
    print(f"{i:>4} {y['throughput']:>25,.0f} {t['throughput']:>22,.0f} {y['throughput'] / t['throughput']:>6.2f} "
          f"{y['operations']['READ']['p50Us']:>11.0f}us {t['operations']['GET']['p50Us']:>7.0f}us "
          f"{f(y['serverCpuUsPerOp'], '>16.2f')} {f(t['serverCpuUsPerOp'], '>7.2f')} {f(y['ycsbCpuUsPerOp'], '>19.2f')} "
          f"{y['loadAverage']:>4.1f} {t['loadAverage']:>4.1f}")
ratios = sorted(y["throughput"] / t["throughput"] for _, y, t in rows)
print(f"throughput YCSB(redis binding)/redis-benchmark: median {statistics.median(ratios):.2f} "
      f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f}, n={len(ratios)}); near 1: YCSB's side is not what limits redis here")
PY
    exit 0
  fi

  # ---------------- rdmakv vs redis vs redis-aof under YCSB
  stores=(rdmakv redis redis-aof)
  echo "YCSB $ycsb: rdmakv (transport $transport) vs redis vs redis-aof; $records records of 10 fields x 100 B (one value" \
    "each), zipfian, $threads YCSB threads; $pairs ABBA pairs of ${secs} s runs (after a ${warmup_secs} s warm-up each);" \
    "results in $out"
  for store in "${stores[@]}"; do
    ycsb_run "$store" "load-$store" load 0
    echo "loaded $store: $(python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['throughput']:,.0f}\")" "$out/load-$store.json") inserts/s"
  done
  for store in "${stores[@]}"; do ycsb_run "$store" "warmup-$store" run "$warmup_secs"; done
  : >"$out/pairs-ycsb.tsv"
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then order=(rdmakv redis redis-aof); else order=(redis-aof redis rdmakv); fi
    for store in "${order[@]}"; do ycsb_run "$store" "pair$i-$store" run "$secs"; done
    printf '%s\t%s\t%s\t%s\n' "$i" "$out/pair$i-rdmakv.json" "$out/pair$i-redis.json" "$out/pair$i-redis-aof.json" \
      >>"$out/pairs-ycsb.tsv"
  done
  python3 - "$out/pairs-ycsb.tsv" "$ycsb" "$threads" <<'PY'
import json, statistics, sys
table, workload, threads = sys.argv[1:]
names = ["rdmakv", "redis", "redis-aof"]
rows = []
for line in open(table):
    i, *paths = line.rstrip("\n").split("\t")
    rows.append((int(i), [json.load(open(p)) for p in paths]))
def spread(values, spec=",.0f"):
    v = sorted(x for x in values if x is not None)
    if not v:
        return "n/a"
    return f"{format(statistics.median(v), spec)} ({format(v[0], spec)}-{format(v[-1], spec)})"
def f(v, spec):
    return "n/a" if v is None else format(v, spec)
print(f"\nYCSB {workload}, {threads} threads: per pair (server CPU = utime+stime of the server per operation; load = 1-min average)")
print(f"{'pair':>4} " + " ".join(f"{n + ' ops/s':>16}" for n in names) + f" {'/redis':>7} {'/aof':>6} "
      + " ".join(f"{'CPU us/op ' + n:>20}" for n in names) + f" {'errors':>6}")
for i, rs in rows:
    errors = sum(c for r in rs for k, c in r["returns"].items() if not k.endswith(" OK"))
    print(f"{i:>4} " + " ".join(f"{r['throughput']:>16,.0f}" for r in rs)
          + f" {rs[0]['throughput'] / rs[1]['throughput']:>7.2f} {rs[0]['throughput'] / rs[2]['throughput']:>6.2f} "
          + " ".join(f"{f(r['serverCpuUsPerOp'], '>20.2f')}" for r in rs) + f" {errors:>6}")
print(f"\nper store, median (min-max) over {len(rows)} runs:")
ops = sorted({op for _, rs in rows for r in rs for op in r["operations"]})
for k, name in enumerate(names):
    runs = [rs[k] for _, rs in rows]
    lat = "; ".join(f"{op} p50 {spread([r['operations'].get(op, {}).get('p50Us') for r in runs], '.0f')} us, "
                    f"p99 {spread([r['operations'].get(op, {}).get('p99Us') for r in runs], '.0f')} us" for op in ops)
    print(f"  {name:>9}: {spread([r['throughput'] for r in runs])} ops/s; server CPU "
          f"{spread([r['serverCpuUsPerOp'] for r in runs], '.2f')} us/op; YCSB JVM CPU "
          f"{spread([r['ycsbCpuUsPerOp'] for r in runs], '.2f')} us/op\n             {lat}")
for k, peer in ((1, "redis"), (2, "redis-aof")):
    v = sorted(rs[0]["throughput"] / rs[k]["throughput"] for _, rs in rows)
    print(f"throughput rdmakv/{peer}: median {statistics.median(v):.2f} (min {v[0]:.2f}, max {v[-1]:.2f}, n={len(v)})")
if all("steadyThroughput" in r for _, rs in rows for r in rs):
    for k, name in enumerate(names):
        print(f"  {name:>9}: {spread([rs[k]['steadyThroughput'] for _, rs in rows])} ops/s after the first seconds"
              " of each run (--ycsb-steady)")
    for k, peer in ((1, "redis"), (2, "redis-aof")):
        v = sorted(rs[0]["steadyThroughput"] / rs[k]["steadyThroughput"] for _, rs in rows)
        print(f"steady throughput rdmakv/{peer}: median {statistics.median(v):.2f} (min {v[0]:.2f}, max {v[-1]:.2f},"
              f" n={len(v)})")
loads = [r["loadAverage"] for _, rs in rows for r in rs]
print(f"load average during the runs: {min(loads):.1f}-{max(loads):.1f}")
PY
  exit 0
fi

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
