#!/bin/bash
# guest-job.sh - the job the SoftRoCE guest runs (run-in-guest.sh copies it into the share as job.sh).
#
# Runs as root in the guest, from /mnt/host (the host's share), with rxe0 already up. Steps:
#   1. environment: ibv_devinfo, rdma link, ulimit -l, rxe0 port counters          -> results/environment.txt
#      then `rdmakv doctor --transport verbs` (bin/rdmakv + the cli's shaded jar from cli/ in the share), as root
#      with memlock unlimited, text and --json; it must exit 0         -> results/doctor.txt, results/doctor.json
#   2. perftest baselines ib_read_lat / ib_send_lat (server and client on 10.0.2.15) -> results/perftest.properties
#   3. JUnit (console launcher) as root, memlock unlimited, on the guest's JDK 22+ (FFM): tests tagged by
#      RDMAKV_JOB_TAG_EXPRESSION found in test-classes/, then the classes named in RDMAKV_JOB_TEST_CLASSES
#                                                                                   -> reports/tagged, reports/named
#   3b. on the guest's JDK 17 (JNA): the classes named in RDMAKV_JOB_JDK17_TEST_CLASSES (the verbs conformance
#      suite, the layout and ops tests, the store's figures)        -> reports/jdk17, results/jdk17/rdmakv.properties
#   4. RDMAKV_JOB_UNPRIVILEGED_CMD as user rdmakv (uid 1000) with memlock limited to
#      RDMAKV_JOB_UNPRIVILEGED_MEMLOCK_KIB (default 8192, the guest's default), JDK 22+ -> e.g. reports/unprivileged
#   5. containers (docker/softroce/guest-containers.sh from the share's docker/): Docker engine, base and server
#      images, a node and the compose cluster, JUnit tagged `containers`   -> results/containers.properties,
#      reports/containers; RDMAKV_JOB_SKIP_CONTAINERS=1 (or true, the Maven profile's default) skips it
# The exit code is 0 only when every step that ran passed; results/summary.txt lists each step's outcome.
#
# Which JDK runs what (issue 28): the guest has two. The host's JDK 22+ (Temurin 25), which build-guest.sh copies to
# /opt/rdmakv-jdk, runs steps 3, 4 and 5's test runner with --enable-native-access=ALL-UNNAMED -Drdmakv.native=ffm
# (RDMAKV_JOB_JDK25_OPTS): the transport and memory-pool take the FFM binding from the jars' META-INF/versions/22, and a
# fallback to JNA fails instead of passing unnoticed; the server processes the tests start run on the same java with
# the same -Drdmakv.native. Debian's JDK 17 runs step 3b (JNA, the binding of embedders on 17) and bin/rdmakv's
# default java; the containers of step 5 run the base image's JRE 17. rdmakv doctor runs on the JDK 22+.
# Every JUnit run's output is kept in reports/<name>/output.log with the java that ran it in reports/<name>/java.txt:
# verify-guest-results.sh counts the "native calls: FFM|JNA" lines there to prove each leg used its binding.
#
# Share layout it expects (the Maven profile "softroce" in integration-tests prepares it):
#   launcher/junit-platform-console-standalone-*.jar   lib/*.jar (test class path)   test-classes/   [classes/]
#   cli/rdmakv (bin/rdmakv) and cli/rdmakv.jar (the cli's shaded jar)
#
# Settings (environment, from job.env): RDMAKV_JOB_TAG_EXPRESSION (default '(softroce & !unprivileged) | softroce-cluster'),
# RDMAKV_JOB_TEST_CLASSES (comma/space separated class names), RDMAKV_JOB_JAVA_OPTS, RDMAKV_JOB_UNPRIVILEGED_CMD,
# RDMAKV_JOB_UNPRIVILEGED_MEMLOCK_KIB, RDMAKV_JOB_PERFTEST_SIZES (default "2 128"), RDMAKV_JOB_PERFTEST_ITERS (1000),
# RDMAKV_JOB_SKIP_PERFTEST=1, RDMAKV_JOB_SKIP_DOCTOR=1, RDMAKV_JOB_DOCTOR_ARGS (default "--transport verbs"),
# RDMAKV_JOB_JDK17_TEST_CLASSES (step 3b; "-" = none), RDMAKV_JOB_JDK25_HOME (/opt/rdmakv-jdk),
# RDMAKV_JOB_JDK17_HOME (/usr/lib/jvm/java-17-openjdk-amd64), RDMAKV_JOB_JDK25_OPTS (see above).
#
# Commands run by step 4 (and anyone else) may call `rdmakv-junit <report-name> <launcher options...>`, which runs
# the console launcher over the share's class path with the job's JVM options on $RDMAKV_JUNIT_JAVA_HOME (the JDK
# 22+ unless a step says otherwise), writing reports/<report-name>/.
set -u
SHARE=/mnt/host
[ -f "$SHARE/job.env" ] && . "$SHARE/job.env"

export RDMAKV_GUEST_IP=10.0.2.15 RDMAKV_GUEST_DEVICE=rxe0 RDMAKV_GUEST_GID_INDEX=1
export RDMAKV_RESULTS="$SHARE/results" RDMAKV_REPORTS="$SHARE/reports" RDMAKV_SHARE="$SHARE"
export RDMAKV_TEST_CLASSES="$SHARE/test-classes"
export RDMAKV_JAVA_OPTS="${RDMAKV_JOB_JAVA_OPTS:--Xmx1g -XX:MaxDirectMemorySize=2g}"
# The two JDKs (see "Which JDK runs what" above). The JDK 22+ leg's options go on top of the job's.
JDK25_HOME=${RDMAKV_JOB_JDK25_HOME:-/opt/rdmakv-jdk}
JDK17_HOME=${RDMAKV_JOB_JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK25_OPTS=${RDMAKV_JOB_JDK25_OPTS:---enable-native-access=ALL-UNNAMED -Drdmakv.native=ffm -Drdmakv.test.expectNative=FFM}
JDK17_OPTS="-Drdmakv.test.expectNative=JNA"
BASE_JAVA_OPTS=$RDMAKV_JAVA_OPTS
export RDMAKV_JUNIT_JAVA_HOME=$JDK25_HOME
export RDMAKV_JAVA_OPTS="$BASE_JAVA_OPTS $JDK25_OPTS"
export RDMAKV_UNPRIVILEGED_MEMLOCK_KIB="${RDMAKV_JOB_UNPRIVILEGED_MEMLOCK_KIB:-8192}"
DEV=$RDMAKV_GUEST_DEVICE
PORT_SYSFS=/sys/class/infiniband/$DEV/ports/1

rm -rf "$RDMAKV_RESULTS" "$RDMAKV_REPORTS"
mkdir -p "$RDMAKV_RESULTS" "$RDMAKV_REPORTS"
chmod 1777 "$RDMAKV_RESULTS" "$RDMAKV_REPORTS"
SUMMARY="$RDMAKV_RESULTS/summary.txt"
FAILED=0

section()
{
    echo
    echo "===== $* ====="
}

# Records a step's outcome; any failing step makes the job fail.
outcome()
{
    local step=$1 rc=$2
    if [ "$rc" = 0 ]
    then
        echo "$step: passed" >> "$SUMMARY"
    else
        echo "$step: FAILED (exit $rc)" >> "$SUMMARY"
        FAILED=1
    fi
    echo "step $step exit $rc"
}

port_counters()
{
    local f
    for f in "$PORT_SYSFS"/counters/* "$PORT_SYSFS"/hw_counters/*
    do
        [ -f "$f" ] && echo "$(basename "$(dirname "$f")")/$(basename "$f")=$(cat "$f" 2>/dev/null)"
    done
}

# The host feeds entropy through virtio-rng (run-in-guest.sh); the driver is a module in the Debian kernel.
modprobe virtio_rng 2>/dev/null || echo "warning: no virtio_rng module"

# rxe's active MTU follows eth0's: 1500 gives RoCE MTU 1024, 9000 gives 4096. Fragmented verbs messages need the
# larger one to finish within the suites' timeouts under emulation. RDMA traffic never leaves the guest (rxe loops
# it back to 10.0.2.15), so the user-mode network's own MTU does not matter. RDMAKV_JOB_ETH_MTU overrides.
ip link set eth0 mtu "${RDMAKV_JOB_ETH_MTU:-9000}" || echo "warning: could not set eth0 mtu ${RDMAKV_JOB_ETH_MTU:-9000}"

# Name resolution with no network beyond the guest: the image has no /etc/hosts and its resolv.conf names the build
# host's resolver, which the restricted user-mode network never reaches, so each lookup of localhost, of the guest's
# name or of 127.0.0.1 (Ratis reverse-resolves its RPC address) waited out the resolver's timeouts (6 s each when
# reproduced on the host). Those names resolve from files now; with no nameserver any other lookup fails at once.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s\n' "$RDMAKV_GUEST_IP" "$(hostname)" \
    > /etc/hosts
: > /etc/resolv.conf

# ---- 1. environment -----------------------------------------------------------------------------------------
section environment
{
    echo "kernel: $(uname -r)"
    echo "ulimit -l (default): $(ulimit -l)"
    echo "java (PATH): $(java -version 2>&1 | head -1)"
    echo "JDK 22+ ($JDK25_HOME, steps 3, 4, 5): $("$JDK25_HOME/bin/java" -version 2>&1 | head -1)"
    echo "JDK 17 ($JDK17_HOME, step 3b): $("$JDK17_HOME/bin/java" -version 2>&1 | head -1)"
    echo; rdma link show
    echo; ibv_devinfo -d "$DEV"
    echo; ls -l /dev/infiniband
    echo; echo "port counters before the job:"; port_counters
} > "$RDMAKV_RESULTS/environment.txt" 2>&1
cat "$RDMAKV_RESULTS/environment.txt"
ulimit -l unlimited

# rdmakv doctor: what an operator would run on this machine; in a working guest it must say the configuration can
# work (exit 0). The active MTU it prints comes from ibv_query_port (the verbs transport), not from sysfs.
if [ "${RDMAKV_JOB_SKIP_DOCTOR:-0}" != 1 ]
then
    section "rdmakv doctor"
    if [ -f "$SHARE/cli/rdmakv" ] && [ -f "$SHARE/cli/rdmakv.jar" ]
    then
        # shellcheck disable=SC2086 # the arguments are a list on purpose
        JAVA_HOME=$JDK25_HOME RDMAKV_JAR="$SHARE/cli/rdmakv.jar" \
            bash "$SHARE/cli/rdmakv" doctor ${RDMAKV_JOB_DOCTOR_ARGS:---transport verbs} \
            > "$RDMAKV_RESULTS/doctor.txt" 2> "$RDMAKV_RESULTS/doctor.stderr.txt"
        doctor_rc=$?
        cat "$RDMAKV_RESULTS/doctor.txt"
        # shellcheck disable=SC2086
        JAVA_HOME=$JDK25_HOME RDMAKV_JAR="$SHARE/cli/rdmakv.jar" \
            bash "$SHARE/cli/rdmakv" doctor ${RDMAKV_JOB_DOCTOR_ARGS:---transport verbs} \
            --json > "$RDMAKV_RESULTS/doctor.json" 2>> "$RDMAKV_RESULTS/doctor.stderr.txt"
        json_rc=$?
        echo "doctor exit $doctor_rc, doctor --json exit $json_rc"
        [ "$doctor_rc" = 0 ] && doctor_rc=$json_rc
    else
        echo "no cli/rdmakv and cli/rdmakv.jar in the share (the softroce profile copies them)"
        doctor_rc=2
    fi
    outcome doctor "$doctor_rc"
fi

# ---- 2. perftest baselines ----------------------------------------------------------------------------------
# Waits until a server listens on a TCP port (perftest exchanges QP details over TCP before any RDMA traffic).
wait_for_listener()
{
    local port=$1 i
    for i in $(seq 1 300)
    do
        ss -ltn "sport = :$port" 2>/dev/null | grep -q LISTEN && return 0
        sleep 0.1
    done
    return 1
}

# One latency test: server and client on the same rxe0 (rxe loopback), prints "typical avg" in microseconds.
perftest_latency()
{
    local tool=$1 size=$2 port=$3 iters=$4 log="$RDMAKV_RESULTS/$1-$2B"
    local args=(-d "$DEV" -x "$RDMAKV_GUEST_GID_INDEX" -F -s "$size" -n "$iters" -p "$port")
    timeout 180 "$tool" "${args[@]}" > "$log.server.log" 2>&1 &
    local server=$!
    if ! wait_for_listener "$port"
    then
        kill "$server" 2>/dev/null
        return 1
    fi
    timeout 180 "$tool" "${args[@]}" "$RDMAKV_GUEST_IP" > "$log.client.log" 2>&1
    local client_rc=$?
    wait "$server"
    local server_rc=$?
    [ $client_rc = 0 ] && [ $server_rc = 0 ] || return 1
    # Result row: #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
    awk -v s="$size" '$1 == s && $2 ~ /^[0-9]+$/ { print $5, $6; found = 1; exit } END { exit !found }' \
        "$log.client.log"
}

if [ "${RDMAKV_JOB_SKIP_PERFTEST:-0}" != 1 ]
then
    section "perftest baselines"
    props="$RDMAKV_RESULTS/perftest.properties"
    echo "# perftest latency under emulation (usec), $DEV, GID index $RDMAKV_GUEST_GID_INDEX" > "$props"
    perf_rc=0
    port=18515
    for tool in ib_read_lat ib_send_lat
    do
        for size in ${RDMAKV_JOB_PERFTEST_SIZES:-2 128}
        do
            port=$(( port + 1 ))
            if figures=$(perftest_latency "$tool" "$size" "$port" "${RDMAKV_JOB_PERFTEST_ITERS:-1000}")
            then
                read -r typical avg <<< "$figures"
                # perftest converts cycles with a CPU clock it calibrates itself; on a busy emulated host that
                # calibration can fail and print inf/nan. Measure once more; if it fails again, say so (a baseline
                # measurement, not a test: it does not fail the job).
                if ! [[ "$typical $avg" =~ ^[0-9.]+\ [0-9.]+$ ]]
                then
                    port=$(( port + 1 ))
                    figures=$(perftest_latency "$tool" "$size" "$port" "${RDMAKV_JOB_PERFTEST_ITERS:-1000}")
                    read -r typical avg <<< "$figures"
                fi
                if ! [[ "$typical $avg" =~ ^[0-9.]+\ [0-9.]+$ ]]
                then
                    echo "# $tool ${size} B: perftest's clock calibration failed twice (got '$typical $avg')" >> "$props"
                    typical=unusable
                    avg=unusable
                fi
                echo "$tool.${size}B.typical_us=$typical" >> "$props"
                echo "$tool.${size}B.avg_us=$avg" >> "$props"
                printf '%-12s %6s B  typical %8s us  avg %8s us\n' "$tool" "$size" "$typical" "$avg"
            else
                echo "$tool ${size} B FAILED; client log:"
                tail -5 "$RDMAKV_RESULTS/$tool-${size}B.client.log"
                perf_rc=1
            fi
        done
    done
    outcome perftest $perf_rc
fi

# ---- 3. JUnit as root ---------------------------------------------------------------------------------------
LAUNCHER=$(ls "$SHARE"/launcher/junit-platform-console-standalone-*.jar 2>/dev/null | head -1)
export RDMAKV_LAUNCHER=$LAUNCHER
classpath="$RDMAKV_TEST_CLASSES"
[ -d "$SHARE/classes" ] && classpath="$classpath:$SHARE/classes"
# The jars on the guest's own disk: a JVM loading its classes through the 9p share starts slower (a node took 183 s
# from the share, 118 s from tmpfs, docker/softroce/README.md), and the cluster tests start several at once.
LIB=/var/tmp/rdmakv-lib
if ! { rm -rf "$LIB" && mkdir -p "$LIB" && cp "$SHARE"/lib/*.jar "$LIB"/ && chmod -R a+rX "$LIB"; }
then
    echo "warning: could not copy the class path to $LIB; JVMs load it from the share"
    LIB=$SHARE/lib
fi
for jar in "$LIB"/*.jar
do
    [ -f "$jar" ] && classpath="$classpath:$jar"
done
export RDMAKV_CLASSPATH=$classpath

cat > /usr/local/bin/rdmakv-junit <<'HELPER'
#!/bin/bash
# rdmakv-junit <report-name> <console launcher options...>: JUnit over the share's class path, reports to the share,
# on $RDMAKV_JUNIT_JAVA_HOME/bin/java (java on PATH when unset). The run's output goes to the console and to
# reports/<name>/output.log, the java and its options to reports/<name>/java.txt (verify-guest-results.sh reads both).
[ $# -ge 1 ] || { echo "usage: rdmakv-junit <report-name> <launcher options...>" >&2; exit 2; }
name=$1
shift
java=java
[ -n "${RDMAKV_JUNIT_JAVA_HOME:-}" ] && java=$RDMAKV_JUNIT_JAVA_HOME/bin/java
dir=$RDMAKV_REPORTS/$name
mkdir -p "$dir"
{
    echo "java=$java"
    version=$("$java" -version 2>&1 | head -1)
    echo "feature=$(echo "$version" | sed -n 's/.* version "\([0-9]*\).*/\1/p')"
    echo "version=$version"
    echo "options=$RDMAKV_JAVA_OPTS"
} > "$dir/java.txt"
# shellcheck disable=SC2086
# Only Jupiter: starting the suite and vintage engines costs tens of seconds under emulation.
# rdmakv.it.classpath: child JVMs a test starts (server processes) need the test class path, which under
# `java -jar launcher` is not java.class.path.
started=$dir/.started
: > "$started"
"$java" $RDMAKV_JAVA_OPTS -Drdmakv.it.classpath="$RDMAKV_CLASSPATH" -jar "$RDMAKV_LAUNCHER" execute --disable-banner --details=tree \
    --exclude-engine=junit-platform-suite --exclude-engine=junit-vintage \
    --class-path "$RDMAKV_CLASSPATH" --reports-dir "$dir" "$@" 2>&1 | tee "$dir/output.log"
rc=${PIPESTATUS[0]}
# A node or peer JVM a test started and never stopped keeps a guest CPU busy (the tcp loop spins) and its ports and
# device resources held: every later step then runs on what is left. Name any such JVM in leftover.txt (printed by
# verify-guest-results.sh) and stop it, so one test's leak is reported as such, not as the next test's timeout.
# RDMAKV_JUNIT_LEFTOVERS=keep skips this (the containers step: its compose cluster outlives the run on purpose).
leftover=
[ "${RDMAKV_JUNIT_LEFTOVERS:-}" = keep ] ||
    leftover=$(pgrep -a -f 'java.*(rdmakv|io\.rdmakv)' 2>/dev/null | grep -v -e 'rdmakv-junit' -e 'pgrep' || true)
if [ -n "$leftover" ]
then
    echo "$leftover" | cut -c1-300 > "$dir/leftover.txt"
    echo "rdmakv-junit: JVMs left running after this run (stopped now):"
    cat "$dir/leftover.txt"
    echo "$leftover" | awk '{ print $1 }' | xargs -r kill -9 2>/dev/null || true
fi
[ "$rc" -ne 0 ] && [ -z "${RDMAKV_JUNIT_RERUN:-}" ] || exit "$rc"
# A JVM that died of a fault in its JIT-compiled code (SIGSEGV or SIGILL in C1/C2 code: qemu's multi-threaded TCG
# does not always keep up with HotSpot patching code that other threads run) fails whatever test it served. Such a
# crash leaves an hs_err_pid*.log; only then are the classes that failed run once more, the first run's reports kept
# under first-run/ (not counted), and the outcome is the second run's. verify-guest-results.sh names the crash.
crashes=$(find "$RDMAKV_SHARE" /tmp /var/tmp /home/rdmakv "$PWD" -maxdepth 1 -name 'hs_err_pid*.log' \
    -newer "$started" 2>/dev/null | sort -u)
[ -n "$crashes" ] || exit "$rc"
classes=$(cat "$dir"/TEST-*.xml 2>/dev/null | awk '
    match($0, /<testcase name="[^"]*" classname="[^"]*"/) { c = $0; sub(/.*classname="/, "", c); sub(/".*/, "", c) }
    /<(failure|error)[ >]/ && c != "" { print c; c = "" }' | sort -u)
[ -n "$classes" ] || exit "$rc"
echo "rdmakv-junit: a JVM crashed during this run (an emulation fault in compiled code, not a test's verdict):"
for crash in $crashes
do
    echo "  $crash: $(grep -m1 '^# Problematic frame' -A1 "$crash" | tail -1) $(grep -m1 -o 'SIG[A-Z]* (0x[0-9a-f]*)' "$crash")"
    mv "$crash" "$dir/" 2>/dev/null || true
done
echo "rdmakv-junit: running the classes that failed once more:" $classes
mkdir -p "$dir/first-run"
for report in "$dir"/TEST-*.xml
do
    [ -f "$report" ] && mv "$report" "$dir/first-run/$(basename "$report").first"
done
selectors=()
for class in $classes
do
    selectors+=(--select-class "$class")
done
RDMAKV_JUNIT_RERUN=1 "$0" "$name/rerun" "${selectors[@]}" --fail-if-no-tests
HELPER
chmod 0755 /usr/local/bin/rdmakv-junit

if [ -z "$LAUNCHER" ] || [ ! -d "$RDMAKV_TEST_CLASSES" ]
then
    section "JUnit"
    echo "no launcher/junit-platform-console-standalone-*.jar or no test-classes/ in the share"
    outcome junit-tagged 2
else
    # "-" stands for "none" here too (a run of the container step alone).
    tags=${RDMAKV_JOB_TAG_EXPRESSION:-(softroce & !unprivileged) | softroce-cluster}
    if [ "$tags" != "-" ]
    then
        section "JUnit: tests tagged '$tags'"
        rdmakv-junit tagged --scan-class-path "$RDMAKV_TEST_CLASSES" --include-tag "$tags" --fail-if-no-tests
        outcome junit-tagged $?
    fi

    # "-" stands for "none" (Maven cannot pass an empty environment variable).
    names=$(echo "${RDMAKV_JOB_TEST_CLASSES:-}" | tr ',' ' ' | sed 's/^ *- *$//')
    if [ -n "${names// /}" ]
    then
        section "JUnit: named classes $names"
        selectors=()
        for name in $names
        do
            selectors+=(--select-class "$name")
        done
        rdmakv-junit named "${selectors[@]}" --fail-if-no-tests
        outcome junit-named $?
    fi

    # ---- 3b. the JDK 17 leg (JNA) -----------------------------------------------------------------------------
    # The verbs conformance suite, the layout and ops tests and the store's figures again, on Debian's JDK 17: the
    # JNA binding on real verbs, which embedders on 17 use. The figures go to results/jdk17/ (same boot as the
    # perftest baselines, which are copied there with the RocksDB write for verbs-targets.sh).
    names=$(echo "${RDMAKV_JOB_JDK17_TEST_CLASSES:-}" | tr ',' ' ' | sed 's/^ *- *$//')
    if [ -n "${names// /}" ]
    then
        section "JUnit on JDK 17 (JNA): named classes $names"
        selectors=()
        for name in $names
        do
            selectors+=(--select-class "$name")
        done
        mkdir -p "$RDMAKV_RESULTS/jdk17"
        chmod 1777 "$RDMAKV_RESULTS/jdk17"
        RDMAKV_JUNIT_JAVA_HOME=$JDK17_HOME RDMAKV_JAVA_OPTS="$BASE_JAVA_OPTS $JDK17_OPTS" \
            RDMAKV_RESULTS="$RDMAKV_RESULTS/jdk17" rdmakv-junit jdk17 "${selectors[@]}" --fail-if-no-tests
        outcome junit-jdk17 $?
        for f in perftest.properties rocksdb.properties
        do
            [ -f "$RDMAKV_RESULTS/$f" ] && cp "$RDMAKV_RESULTS/$f" "$RDMAKV_RESULTS/jdk17/$f"
        done
    fi
fi

# ---- 4. unprivileged, low memlock -----------------------------------------------------------------------------
if [ -n "${RDMAKV_JOB_UNPRIVILEGED_CMD:-}" ]
then
    section "unprivileged (uid 1000, memlock ${RDMAKV_UNPRIVILEGED_MEMLOCK_KIB} KiB): $RDMAKV_JOB_UNPRIVILEGED_CMD"
    bytes=$(( RDMAKV_UNPRIVILEGED_MEMLOCK_KIB * 1024 ))
    env HOME=/home/rdmakv USER=rdmakv LOGNAME=rdmakv \
        prlimit --memlock="$bytes:$bytes" \
        setpriv --reuid=rdmakv --regid=rdmakv --init-groups --inh-caps=-all \
        bash -c "cd /home/rdmakv && $RDMAKV_JOB_UNPRIVILEGED_CMD"
    outcome unprivileged $?
fi

# ---- 5. containers --------------------------------------------------------------------------------------------
# The Docker engine, the base and server images, a node and the compose cluster, the tests tagged `containers`.
case ${RDMAKV_JOB_SKIP_CONTAINERS:-0} in 1|true) skip_containers=1 ;; *) skip_containers=0 ;; esac
if [ "$skip_containers" != 1 ]
then
    section "containers (guest-containers.sh)"
    if ! command -v dockerd > /dev/null
    then
        echo "no dockerd in this guest image (guest-packages.txt lists docker.io)"
        outcome containers 2
    elif [ ! -f "$SHARE/docker/softroce/guest-containers.sh" ]
    then
        echo "no docker/softroce/guest-containers.sh in the share (the softroce profile copies docker/)"
        outcome containers 2
    else
        bash "$SHARE/docker/softroce/guest-containers.sh"
        outcome containers $?
    fi
fi

section "port counters after the job"
port_counters | tee "$RDMAKV_RESULTS/counters-after.txt"
section summary
cat "$SUMMARY" 2>/dev/null || echo "no steps ran"
[ -s "$SUMMARY" ] || FAILED=1
exit $FAILED
