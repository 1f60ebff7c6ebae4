#!/usr/bin/env bash
# A 3-node replicated cluster on a CPU-starved host, to check coordination settings for slow hosts (an emulated VM,
# a loaded container host) on an ordinary one: `rdmakv cluster local` with its three node processes in one cgroup
# that may use QUOTA_PERCENT of one core in all (cgroup v1 `cpu` or v2 `cpu.max`; needs root), then a PUT from
# outside the cgroup every 2 s until one succeeds (at most 600 s), `cluster status`, and a count of the nodes'
# coordination events. Prints one summary line. Extra arguments go to `cluster local` (e.g. `--lease-ms 30000
# -S cluster.electionTimeoutMs=5000`). Needs the launcher jar (mvn -B -q -DskipTests package).
#
#   benchmarks/scripts/throttled-cluster.sh OUT_DIR QUOTA_PERCENT [cluster local options...]
#   benchmarks/scripts/throttled-cluster.sh /tmp/slow-defaults 15
#   benchmarks/scripts/throttled-cluster.sh /tmp/slow-tuned 15 --lease-ms 30000 -S cluster.electionTimeoutMs=5000
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rdmakv="$root/bin/rdmakv"
out=$1 quota=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "needs root (a cgroup of its own)" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"

# Nine ports from BASE (cluster local: node i on BASE+10(i-1), +1 data, +2 Raft), all free now.
free_base() {
  python3 - <<'PY'
import random, socket
for _ in range(200):
    base = random.randrange(20000, 60000, 10)
    socks = []
    try:
        for p in [base + 10 * i + j for i in range(3) for j in range(3)]:
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
PY
}
base=$(free_base)

if [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cgroup.procs ]; then
  cg=/sys/fs/cgroup/cpu/rdmakv-throttled-$$
  mkdir "$cg"
  echo 100000 > "$cg/cpu.cfs_period_us"
  echo $(( quota * 1000 )) > "$cg/cpu.cfs_quota_us"
else
  cg=/sys/fs/cgroup/rdmakv-throttled-$$
  mkdir "$cg"
  echo "$(( quota * 1000 )) 100000" > "$cg/cpu.max"
fi
cluster=
cleanup() {
  local rc=$?
  if [ -n "$cluster" ]; then
    kill "$cluster" 2>/dev/null || true
    wait "$cluster" 2>/dev/null || true
  fi
  # The nodes stop after `cluster local` does: the cgroup can go once they left it (at most 60 s).
  for _ in $(seq 1 120); do [ -n "$(cat "$cg/cgroup.procs")" ] || break; sleep 0.5; done
  rmdir "$cg" 2>/dev/null || echo "cgroup $cg still holds $(cat "$cg/cgroup.procs" | xargs)" >&2
  exit "$rc"
}
trap cleanup EXIT

t0=$SECONDS
( echo "$BASHPID" > "$cg/cgroup.procs"
  export RDMAKV_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m"
  exec timeout 1800 "$rdmakv" cluster local --nodes 3 --replicas 1 --base-port "$base" --data-dir "$out/data" \
    --ready-timeout-ms 900000 -S pool.size=16MiB "$@" ) > "$out/cluster.out" 2> "$out/cluster.err" &
cluster=$!
until grep -q '^READY cluster' "$out/cluster.out" 2>/dev/null; do
  kill -0 "$cluster" 2>/dev/null || { echo "cluster local exited:" >&2; cat "$out/cluster.err" >&2; exit 1; }
  sleep 2
done
ready=$(( SECONDS - t0 ))
t1=$SECONDS put=failed
while [ $(( SECONDS - t1 )) -lt 600 ]; do
  if "$rdmakv" put --server "127.0.0.1:$base" --timeout-ms 20000 k v >> "$out/put.log" 2>&1; then put=ok; break; fi
  sleep 2
done
after=$(( SECONDS - t1 ))
timeout 120 "$rdmakv" cluster status --server "127.0.0.1:$base" --timeout-ms 20000 > "$out/status.txt" 2>&1 || true
logs=$(find "$out/data" -name 'node-*.log')
count() { cat $logs | grep -c "$1" || true; }
echo "quota ${quota}% of a core, options [$*]: READY after ${ready} s; first PUT $put ${after} s after READY;" \
  "leaderships $(count "became the coordination group's leader"), lost leadership $(count 'Lost leadership')," \
  "joins answered $(count 'joined the cluster'), leases declared expired $(count 'lease expired');" \
  "$(head -1 "$out/status.txt")"
