#!/usr/bin/env bash
# Start-up with data (issue 5: "a node with 1 GiB of data in RocksDB is serving one-sided GETs for all of it within
# 10 s"): fills a data directory once with `rdmakv load`, then starts `rdmakv server` on it RUNS times, each a fresh
# process, and reports the time from launch to serving (the READY line, printed once the control port accepts
# clients with every key in the pool), the server's own figure (READY's startupMs, from the OS's start time of its
# process), the process's CPU time at that moment, and the server's `startup:` line with every phase.
#
#   benchmarks/startup.sh                                             # 1,048,576 x 1 KiB (1.02 GiB), 5 runs
#   benchmarks/startup.sh --keys 104858 --value-size 10240            # 1.0 GiB of 10 KiB values
#   benchmarks/startup.sh --runs 10 --jar other.jar --jar cli/target/rdmakv.jar   # two builds, ABBA order, ratio
#
# With two --jar the runs alternate A B B A ..., so drift on a shared machine does not favour either; the summary has
# the median of the per-pair ratios B/A. The data directory is kept for later runs (--data-dir, default
# /tmp/rdmakv-startup-KEYSxVALUE); delete it to reload. Nothing fails on time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

keys=1048576
key_size=16
value_size=1024
pool_size=""
runs=5
data_dir=""
jars=()
extra=()

usage() {
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  echo "options: --keys N --key-size N --value-size N --runs N --data-dir DIR --jar JAR (repeatable)"
  echo "         --pool-size SIZE (default: what rdmakv load says, rounded up to 64 MiB)"
  echo "         -S key=value (a server setting, repeatable)"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --keys) keys="$2"; shift 2 ;;
    --key-size) key_size="$2"; shift 2 ;;
    --value-size) value_size="$2"; shift 2 ;;
    --pool-size) pool_size="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --data-dir) data_dir="$2"; shift 2 ;;
    --jar) jars+=("$2"); shift 2 ;;
    -S) extra+=(-S "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "startup.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ ${#jars[@]} -eq 0 ] && jars=("$root/cli/target/rdmakv.jar")
[ ${#jars[@]} -gt 2 ] && { echo "startup.sh: at most two --jar" >&2; exit 2; }
for j in "${jars[@]}"; do
  [ -f "$j" ] || { echo "startup.sh: no jar $j (build: mvn -B -q -pl cli -am package -DskipTests)" >&2; exit 2; }
done
data_dir="${data_dir:-/tmp/rdmakv-startup-${keys}x${value_size}}"

work="$(mktemp -d /tmp/rdmakv-startup-run.XXXXXX)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

if [ ! -f "$data_dir/CURRENT" ]; then
  echo "loading ${keys} x (${key_size} B key + ${value_size} B value) into $data_dir"
  RDMAKV_JAR="${jars[-1]}" "$root/bin/rdmakv" load --data-dir "$data_dir" --keys "$keys" --key-size "$key_size" \
    --value-size "$value_size" 2>/dev/null | tee "$work/load.txt"
  suggested="$(sed -n 's/.*--pool-size \([0-9]*\)MiB.*/\1/p' "$work/load.txt")"
else
  echo "using the data already in $data_dir"
  suggested=""
fi
if [ -z "$pool_size" ]; then
  [ -n "$suggested" ] || { echo "startup.sh: give --pool-size for an existing data dir" >&2; exit 2; }
  pool_size="$(( (suggested + 63) / 64 * 64 ))MiB"
fi
echo "pool.size $pool_size, $runs runs per jar, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# One start: sets run_ms (launch to READY on stdout, measured here), run_startup_ms (the server's own startupMs, from
# the OS's start time of the process; -1 from builds without it), run_cpu (process CPU at READY) and $work/line.
one_run() {
  local jar="$1" out="$work/out" err="$work/err"
  : > "$out"; : > "$err"
  local t0
  t0="$(date +%s%N)"
  RDMAKV_JAR="$jar" "$root/bin/rdmakv" server --data-dir "$data_dir" --pool-size "$pool_size" --host 127.0.0.1 \
    --port 0 --data-port 0 "${extra[@]}" > "$out" 2> "$err" &
  server_pid=$!
  local ready=""
  while [ -z "$ready" ] && kill -0 "$server_pid" 2>/dev/null; do
    ready="$(grep -m1 '^READY' "$out" || true)"
    [ -z "$ready" ] && sleep 0.01
  done
  run_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  run_cpu=-1
  if [ -n "$ready" ] && [ -r "/proc/$server_pid/stat" ]; then
    # utime + stime (fields 14 and 15 of stat) in clock ticks
    run_cpu="$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' \
      "/proc/$server_pid/stat")"
  fi
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  if [ -z "$ready" ]; then
    echo "startup.sh: the server did not start:" >&2; tail -20 "$err" >&2; exit 1
  fi
  grep -m1 'startup:' "$err" | sed 's/.*startup: //' > "$work/line" ||
    echo "(no startup line: an older build)" > "$work/line"
  run_startup_ms="$(sed -n 's/.*startupMs=\([0-9-]*\).*/\1/p' <<< "$ready")"
  run_startup_ms="${run_startup_ms:--1}"
}

median() {
  sort -n | awk '{ a[NR] = $1 }
    END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

declare -a ms_a ms_b cpu_a cpu_b
for ((r = 0; r < runs; r++)); do
  order=(0 1)
  (( r % 2 == 1 )) && order=(1 0)
  for i in "${order[@]}"; do
    [ "$i" -ge ${#jars[@]} ] && continue
    one_run "${jars[$i]}"
    if [ "$i" -eq 0 ]; then ms_a[r]=$run_ms; cpu_a[r]=$run_cpu; else ms_b[r]=$run_ms; cpu_b[r]=$run_cpu; fi
    printf '%-24s run %2d: READY %6s ms after launch (startupMs %6s), CPU %6s ms | %s\n' \
      "$(basename "${jars[$i]}")" "$((r + 1))" "$run_ms" "$run_startup_ms" "$run_cpu" "$(cut -c1-400 "$work/line")"
  done
done

echo
summary() {
  local name="$1"; shift
  local -n ms=$1 cpu=$2
  printf '%-24s median %s ms from launch to READY (all: %s), CPU median %s ms\n' "$name" \
    "$(printf '%s\n' "${ms[@]}" | median)" "$(printf '%s ' "${ms[@]}")" "$(printf '%s\n' "${cpu[@]}" | median)"
}
summary "$(basename "${jars[0]}")" ms_a cpu_a
if [ ${#jars[@]} -eq 2 ]; then
  summary "$(basename "${jars[1]}")" ms_b cpu_b
  ratios="$(for ((r = 0; r < runs; r++)); do
    awk -v a="${ms_a[r]}" -v b="${ms_b[r]}" 'BEGIN { printf "%.3f\n", b / a }'
  done)"
  echo "ratio B/A per pair: median $(median <<< "$ratios")," \
    "range $(sort -n <<< "$ratios" | head -1)..$(sort -n <<< "$ratios" | tail -1)"
fi
