#!/bin/bash
# verbs-targets.sh - prints issue #5's verbs targets as measured in ONE guest boot, each ratio beside its target.
#
#   docker/softroce/verbs-targets.sh <results-dir>        (the share's results/, e.g. called by verify-guest-results.sh)
#
# Reads what the guest job left in <results-dir>:
#   perftest.properties  ib_read_lat / ib_send_lat typical (= median) latencies, 2 B and 128 B   (guest-job.sh step 2)
#   rdmakv.properties    GET/PUT latencies (cached GETs caller-driven and progress-thread only), server CPU per GET
#                                                                           (io.rdmakv.it.figures.VerbsStoreFiguresTest)
#   rocksdb.properties   the RocksDB write of one PUT alone                (io.rdmakv.it.figures.RocksWriteFiguresTest)
#   startup.properties   a verbs node's start-up with data in RocksDB    (io.rdmakv.it.figures.VerbsStartupFiguresTest)
# Baselines: a GET reads an extent of about 140 bytes (24 B header, key, 100 B value, CRC) and a bucket of 128 B,
# so both GET ratios use ib_read_lat 128 B; the PUT request is about 140 bytes, so "two ib_send_lat" is 2 x the
# 128 B figure (perftest's send latency is half a round trip). Values only: a figure that is missing or unusable is
# printed as n/a with the reason, and the script exits 0 whatever the figures say (a benchmark never fails a build;
# emulation on a shared host gives ratios, not absolute latencies). Exit 2 only for a bad argument.
set -uo pipefail

[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 <results-dir>" >&2; exit 2; }
RESULTS=$1

# The value of key in results file, or nothing when the file or the key is missing.
prop()
{
    local file=$RESULTS/$1 key=$2
    [ -f "$file" ] || return 0
    grep -m1 "^$key=" "$file" | cut -d= -f2-
}

is_number()
{
    [[ "${1:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

# ratio NUMERATOR DENOMINATOR: the quotient with 3 significant decimals, or n/a when either is not a positive number.
ratio()
{
    if is_number "${1:-}" && is_number "${2:-}" && awk -v d="$2" 'BEGIN { exit !(d > 0) }'
    then
        awk -v n="$1" -v d="$2" 'BEGIN { printf "%.3f", n / d }'
    else
        echo "n/a"
    fi
}

# missing NAME VALUE: the reason a figure is not there ("" when it is a number).
missing()
{
    local name=$1 value=${2:-}
    if [ -z "$value" ]
    then
        echo "$name not measured"
    elif ! is_number "$value"
    then
        echo "$name $value"
    fi
}

row()
{
    printf '  %-50s %8s  %-10s %s\n' "$1" "$2" "$3" "$4"
}

# ratio_row LABEL TARGET NUMERATOR-NAME NUMERATOR DENOMINATOR-NAME DENOMINATOR [DENOMINATOR-TEXT]: one ratio with
# its target and what it came from (or why it is n/a).
ratio_row()
{
    local label=$1 target=$2 num_name=$3 num=$4 den_name=$5 den=$6 den_text=${7:-$6 us}
    local r reasons
    r=$(ratio "$num" "$den")
    if [ "$r" = n/a ]
    then
        reasons=$(printf '%s; ' "$(missing "$num_name" "$num")" "$(missing "$den_name" "$den")" |
            sed 's/^; //; s/; ; /; /; s/; $//')
        row "$label" n/a "$target" "n/a: ${reasons:-$den_name is 0}"
    else
        row "$label" "$r" "$target" "$num us / $den_text"
    fi
}

read_128=$(prop perftest.properties ib_read_lat.128B.typical_us)
send_128=$(prop perftest.properties ib_send_lat.128B.typical_us)
rocks=$(prop rocksdb.properties rocksdb.write.p50.us)
put_base=
put_base_name="ib_send_lat 128B"
if ! is_number "$send_128"
then
    put_base=$send_128
elif ! is_number "$rocks"
then
    put_base=$rocks
    put_base_name="RocksDB write p50"
else
    put_base=$(awk -v s="$send_128" -v r="$rocks" 'BEGIN { printf "%.1f", 2 * s + r }')
fi

echo "#5 verbs targets (one guest boot, SoftRoCE under emulation: ratios, not absolute latencies; values only)"
row "figure" "measured" "target" "from (p50s; perftest's typical is its median)"
ratio_row "one-sided GET, location cached / ib_read_lat" "<= 1.3" "cached GET p50" \
    "$(prop rdmakv.properties rdmakv.get.oneSided.cached.p50.us)" "ib_read_lat 128B" "$read_128"
thread_only=$(prop rdmakv.properties rdmakv.get.oneSided.cached.progressThread.p50.us)
if [ -n "$thread_only" ]
then
    ratio_row "  the same, progress.callerDriven=false" "<= 1.3" "progress-thread cached GET p50" \
        "$thread_only" "ib_read_lat 128B" "$read_128"
    caller_pct=$(prop rdmakv.properties rdmakv.get.oneSided.cached.callerCompleted.percent)
    [ -z "$caller_pct" ] || echo "  (cached GETs completed on the caller's own thread: $caller_pct%)"
fi
ratio_row "one-sided GET, cold (no cache) / ib_read_lat" "<= 2.5" "cold GET p50" \
    "$(prop rdmakv.properties rdmakv.get.oneSided.cold.p50.us)" "ib_read_lat 128B" "$read_128"
ratio_row "  cross-check: a key's first read / ib_read_lat" "<= 2.5" "first-read GET p50" \
    "$(prop rdmakv.properties rdmakv.get.oneSided.firstRead.p50.us)" "ib_read_lat 128B" "$read_128"
ratio_row "PUT / (2 x ib_send_lat + RocksDB write alone)" "<= 1.5" "PUT p50" \
    "$(prop rdmakv.properties rdmakv.put.p50.us)" "$put_base_name" "$put_base" \
    "(2 x $send_128 + $rocks) us"
ratio_row "server CPU per GET, one-sided / RPC (gross)" "< 0.02" "CPU per one-sided GET" \
    "$(prop rdmakv.properties rdmakv.server.cpu.perOneSidedGet.us)" "CPU per RPC GET" \
    "$(prop rdmakv.properties rdmakv.server.cpu.perRpcGet.us)"
ratio_row "server CPU per GET, one-sided / RPC (net of idle)" "< 0.02" "net CPU per one-sided GET" \
    "$(prop rdmakv.properties rdmakv.server.cpu.net.perOneSidedGet.us)" "net CPU per RPC GET" \
    "$(prop rdmakv.properties rdmakv.server.cpu.net.perRpcGet.us)"
idle=$(prop rdmakv.properties rdmakv.server.cpu.idle.percentOfOneCore)
[ -z "$idle" ] || echo "  (the server's idle polling: $idle% of one core, subtracted in the net row)"

startup_ms=$(prop startup.properties startup.ms)
if is_number "$startup_ms"
then
    row "start-up: $(prop startup.properties startup.data.mib) MiB in RocksDB, verbs node READY" \
        "$(awk -v ms="$startup_ms" 'BEGIN { printf "%.1f s", ms / 1000 }')" "1 GiB/10 s" \
        "pool registration $(prop startup.properties startup.phase.poolRegistration.ms) ms, warm-up $(prop \
startup.properties startup.phase.warmUp.ms) ms, pool map+pin $(prop startup.properties startup.phase.poolMapPin.ms) ms;\
 $(prop startup.properties startup.sampledKeys.oneSidedHits) sampled keys read one-sided"
else
    row "start-up with data in RocksDB, verbs node READY" n/a "1 GiB/10 s" "n/a: $(missing "startup.ms" "$startup_ms")"
fi
exit 0
