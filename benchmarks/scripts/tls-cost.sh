#!/usr/bin/env bash
# tls-cost.sh OUT [PAIRS]: what TLS 1.3 costs on the tcp path. Two nodes side by side (tcp, the same settings), one
# plaintext and one with tls.certFile; `rdmakv bench --transport tcp` against each in ABBA pairs per shape (GET and
# SET at 1 x 1, then 50 connections x 16 in flight). Certificates are made with openssl as docs/security.md says.
# Prints one line per run; the ratio and its spread are worked out from them. Needs the jar built
# (mvn -B -q -pl cli -am package -DskipTests). SHAPES (a regex, default all) picks the shapes; PLAIN_OPTS are JVM
# options of the plaintext runs' client only (e.g. -Drdmakv.transport.tcp.directWrites=false, which TLS implies).
#
#   benchmarks/scripts/tls-cost.sh /tmp/tlscost 3
#   SHAPES=1x1 PLAIN_OPTS=-Drdmakv.transport.tcp.directWrites=false benchmarks/scripts/tls-cost.sh /tmp/tlscost-nodw 3
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: tls-cost.sh OUT [PAIRS]}"
pairs="${2:-3}"
mkdir -p "$out/pki"
cd "$out/pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=bench CA" \
  -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=node" -keyout node.key \
  -out node.csr 2>/dev/null
openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -out node.pem \
  -extfile <(printf "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth") 2>/dev/null
cd - >/dev/null
rm -rf "$out/plain" "$out/tls"
# Ports the kernel picks (--port 0): a fixed port may be another node's on a shared host. The READY line names them.
"$root/bin/rdmakv" server --host 127.0.0.1 --port 0 --data-port 0 --data-dir "$out/plain" --transport tcp \
  --pool-size 256MiB > "$out/node-plain.log" 2>&1 &
plain_pid=$!
"$root/bin/rdmakv" server --host 127.0.0.1 --port 0 --data-port 0 --data-dir "$out/tls" --transport tcp \
  --pool-size 256MiB -S "tls.certFile=$out/pki/node.pem" -S "tls.keyFile=$out/pki/node.key" > "$out/node-tls.log" 2>&1 &
tls_pid=$!
trap 'kill $plain_pid $tls_pid 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  grep -q READY "$out/node-plain.log" 2>/dev/null && grep -q READY "$out/node-tls.log" 2>/dev/null && break
  kill -0 $plain_pid 2>/dev/null && kill -0 $tls_pid 2>/dev/null || break
  sleep 1
done
control() { grep -o 'READY.* control=[^ ]*' "$1" | sed 's/.*control=//'; }
plain_seed="$(control "$out/node-plain.log")"
tls_seed="$(control "$out/node-tls.log")"
if [ -z "$plain_seed" ] || [ -z "$tls_seed" ]; then
  echo "a node did not start: see $out/node-plain.log and $out/node-tls.log" >&2
  exit 1
fi
bench() { # which, shape args...
  local which="$1"; shift
  if [ "$which" = tls ]; then
    "$root/bin/rdmakv" bench -s "$tls_seed" --transport tcp --tls-ca "$out/pki/ca.pem" --no-progress "$@"
  else
    RDMAKV_JAVA_OPTS="${PLAIN_OPTS:-}" "$root/bin/rdmakv" bench -s "$plain_seed" --transport tcp --no-progress "$@"
  fi
}
for which in plain tls; do # load once per node
  bench "$which" -w C --keys 10000 -d 1s --warmup 0s > /dev/null 2>&1
done
while read -r name args; do
  [[ "$name" =~ ${SHAPES:-.} ]] || continue
  for pair in $(seq 1 "$pairs"); do
    for which in plain tls tls plain; do
      # shellcheck disable=SC2086
      line="$(bench "$which" $args --keys 10000 --no-load -d 3s --warmup 1s 2>/dev/null | grep -E '^(GET|PUT) ' |
        head -1)"
      echo "$name pair $pair $which: $line" | tee -a "$out/runs.txt"
    done
  done
done <<'SHAPES'
get-1x1 -w C -c 1 -t 1 --inflight 1
set-1x1 -w get=0,put=100 -c 1 -t 1 --inflight 1
get-50x16 -w C -c 50 -t 2 --inflight 16
set-50x16 -w get=0,put=100 -c 50 -t 2 --inflight 16
SHAPES
