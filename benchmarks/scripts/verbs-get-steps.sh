#!/usr/bin/env bash
# Where the time of a cached one-sided GET over verbs goes, per step, in the SoftRoCE guest (issue 28): one boot runs
# ib_read_lat (the yardstick), one verbs node, `rdmakv bench` cached GETs (100 B, one in flight, 500 keys) with the
# launcher jar and, when given, a jar from before a change (ABBA: before, after, after, before), then a run of the
# after jar with async-profiler (itimer) loaded once it measures. Prints the p50s, their ratio to ib_read_lat 128 B,
# and the steps (get-steps.py) of the profile.
#
#   benchmarks/scripts/verbs-get-steps.sh SHARE_DIR [BEFORE_JAR]
#
# The jars must be built on a JDK 22+ (the FFM classes; the guest runs them on its JDK 25), e.g.
# JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -B -q -pl cli -am package -DskipTests. Needs the guest image
# (docker/softroce/build-guest.sh) and no other guest running. RDMAKV_JAR: the after jar (default cli/target/rdmakv.jar).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
share=$1
before=${2:-}
jar="${RDMAKV_JAR:-$root/cli/target/rdmakv.jar}"
for j in "$jar" ${before:+"$before"}; do
  unzip -l "$j" | grep 'META-INF/versions/22/' >/dev/null || { echo "$j has no FFM classes: build it on a JDK 22+" >&2; exit 2; }
done
if pgrep -f qemu-system >/dev/null; then echo "another guest is running: wait for it" >&2; exit 2; fi
so=/tmp/asprof/linux-x64/libasyncProfiler.so
if [ ! -f "$so" ]; then
  mkdir -p /tmp/asprof
  unzip -o -q "$(ls ~/.m2/repository/tools/profiler/async-profiler/*/async-profiler-*.jar | tail -1)" \
    'linux-x64/*' -d /tmp/asprof
fi
mkdir -p "$share"
cp "$root/bin/rdmakv" "$share/rdmakv"
cp "$jar" "$share/after.jar"
rm -f "$share/before.jar"
[ -n "$before" ] && cp "$before" "$share/before.jar"
cp "$so" "$share/libasyncProfiler.so"
rc=0
RDMAKV_JOB_SKIP_CONTAINERS=1 RDMAKV_SOFTROCE_TIMEOUT="${RDMAKV_SOFTROCE_TIMEOUT:-1500}" \
  "$root/docker/softroce/run-in-guest.sh" "$share" "$root/benchmarks/scripts/verbs-get-steps-job.sh" \
  > "$share/run.log" 2>&1 || rc=$?
echo "guest exit $rc (console: $share/guest-console.log)"
r="$share/results"
cat "$r/job.log" 2>/dev/null || true
read_lat=$(sed -n 's/^ib_read_lat.128B=\([0-9.]*\) .*/\1/p' "$r/perftest.properties" 2>/dev/null || true)
for f in "$r"/bench-*.json; do
  [ -f "$f" ] || continue
  python3 - "$f" "$read_lat" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["operations"].get("GET", {})
lat = float(sys.argv[2]) if sys.argv[2] else 0
p50 = g.get("p50Us")
print("%s: GET p50 %s us, p99 %s us, %s GETs%s" % (sys.argv[1].rsplit("/", 1)[-1], p50, g.get("p99Us"),
      g.get("count"), " = %.2f x ib_read_lat 128 B (%s us)" % (p50 / lat, lat) if p50 and lat else ""))
PY
done
[ -f "$r/profile.collapsed" ] && python3 "$root/benchmarks/scripts/get-steps.py" "$r/profile.collapsed" | tee "$r/steps.txt"
exit "$rc"
