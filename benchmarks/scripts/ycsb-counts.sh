#!/usr/bin/env bash
# Counts per YCSB operation, rdmakv (one node, tcp) against redis (no persistence), in one sitting: each server's and
# each YCSB JVM's CPU, system calls and context switches (perf stat -e task-clock,raw_syscalls:sys_enter,
# context-switches -p PID over the middle of each run), two rounds, rdmakv then redis. What it tells apart: a path
# that makes more system calls or wake-ups (hand-offs) from one that spends more CPU per call (its own instructions).
# Needs perf, redis-server and the jars (mvn -B -q -pl cli,benchmarks/ycsb -am package -DskipTests).
#
#   benchmarks/scripts/ycsb-counts.sh WORKLOAD THREADS SECONDS     e.g. a 16 10 (lower-case workload letter)
set -euo pipefail
wl=$1; th=$2; secs=$3
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; w=${OUT:-/tmp/rdmakv-ycsb-counts}/$wl$th; rm -rf $w; mkdir -p $w
RDMAKV_JAVA_OPTS="${NODE_OPTS:-}" $root/bin/rdmakv server --host 127.0.0.1 --control-port 17700 --data-port 17701 \
  --data-dir $w/data --pool-size 1GiB --pin BEST_EFFORT --transport tcp > $w/node.log 2>&1 &
node=$!; rdmakv=$node
redis-server --port 17710 --bind 127.0.0.1 --save '' --appendonly no --io-threads 1 --protected-mode no --dir $w > $w/redis.log 2>&1 &
redis=$!
trap "kill $node $redis 2>/dev/null; wait" EXIT
for i in $(seq 600); do grep -q '^READY ' $w/node.log && break; sleep 0.5; done
yj=(java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true -XX:MaxDirectMemorySize=1g)
wlf=(-P $root/benchmarks/ycsb/workloads/workload$wl -p recordcount=100000 -p measurementtype=hdrhistogram -p hdrhistogram.percentiles=50,99)
db_rdmakv=(-db io.rdmakv.ycsb.RdmakvClient -p rdmakv.seed=127.0.0.1:17700 -p rdmakv.transport=tcp)
db_redis=(-db io.rdmakv.ycsb.RedisClient -p redis.port=17710)
for s in rdmakv redis; do
  eval "db=(\"\${db_$s[@]}\")"
  "${yj[@]}" -cp $root/benchmarks/ycsb/target/ycsb.jar site.ycsb.Client -load "${db[@]}" "${wlf[@]}" -threads 4 > $w/$s-load.txt 2>&1
  "${yj[@]}" -cp $root/benchmarks/ycsb/target/ycsb.jar site.ycsb.Client -t "${db[@]}" "${wlf[@]}" -threads $th -p maxexecutiontime=4 > $w/$s-warm.txt 2>&1
done
for round in 1 2; do for s in rdmakv redis; do
  eval "db=(\"\${db_$s[@]}\")"; eval "spid=\$$s"
  "${yj[@]}" ${CLIENT_OPTS:-} -cp $root/benchmarks/ycsb/target/ycsb.jar site.ycsb.Client -t "${db[@]}" "${wlf[@]}" -threads $th -p maxexecutiontime=$secs > $w/$s-run.txt 2>$w/$s-run.err &
  yp=$!
  for i in $(seq 100); do grep -q '^Starting test' $w/$s-run.err 2>/dev/null && break; sleep 0.1; done
  sleep 1
  perf stat -x, -e task-clock,raw_syscalls:sys_enter,context-switches -p $spid -o $w/$s-srv.perf -- sleep $((secs-3)) &
  p1=$!
  perf stat -x, -e task-clock,raw_syscalls:sys_enter,context-switches -p $yp -o $w/$s-cli.perf -- sleep $((secs-3)) &
  p2=$!
  wait $p1 $p2 || true; wait $yp
  tp=$(grep 'Throughput' $w/$s-run.txt | awk -F', ' '{print $3}')
  python3 - $s $tp $((secs-3)) $w/$s-srv.perf $w/$s-cli.perf <<'PY'
import sys
s,tp,secs,srv,cli=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]),sys.argv[4],sys.argv[5]
ops=tp*secs
def rd(f):
    d={}
    for l in open(f):
        p=l.strip().split(',')
        if len(p)>3 and p[0] and p[0][0].isdigit(): d[p[2]]=float(p[0])
    return d
a=rd(srv); b=rd(cli)
print(f"{s:7s} {tp:9.0f} ops/s | server: CPU {a['task-clock']*1000/ops:6.2f} us/op, syscalls {a['raw_syscalls:sys_enter']/ops:5.2f}/op, cs {a['context-switches']/ops:5.2f}/op | client: CPU {b['task-clock']*1000/ops:6.2f} us/op, syscalls {b['raw_syscalls:sys_enter']/ops:5.2f}/op, cs {b['context-switches']/ops:5.2f}/op")
PY
done; done
echo "load $(cut -d' ' -f1 /proc/loadavg)"
