#!/bin/bash
# verify-guest-results.sh - decides whether a SoftRoCE guest run passed, from what it left in the share.
#
#   docker/softroce/verify-guest-results.sh <share-dir>
#
# Passes only when run-in-guest.sh recorded exit code 0 (host-exit-code), every JUnit XML report under reports/
# shows no failure and no error, and at least one test ran. Prints the perftest figures, the "#5 verbs targets" table
# (verbs-targets.sh: each measured ratio beside its target, values only, never a reason to fail) and one closing line
# "softroce: N passed, N failed, N skipped". Kept apart from run-in-guest.sh (like failsafe's verify goal) so the
# results are summarised even when the job failed.
# The native binding of each JDK leg (issue 28), from the output of every JUnit run (reports/<name>/output.log, the
# java that ran it in reports/<name>/java.txt, both written by the job's rdmakv-junit): the runs on JDK 22+ must log
# "native calls: FFM (JDK n)" and never "native calls: JNA", the runs on JDK 17 the reverse; the verbs suites' runs
# (tagged, named, unprivileged) on JDK 22+ must have logged FFM at least once, and the JDK 17 leg (jdk17) JNA at
# least once, when they ran. Counts per run and leg are printed and written to results/native-bindings.properties.
set -uo pipefail

[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 <share-dir>" >&2; exit 2; }
SHARE=$1
problems=()

if [ ! -f "$SHARE/host-exit-code" ]
then
    problems+=("the guest harness did not run (no $SHARE/host-exit-code)")
else
    rc=$(cat "$SHARE/host-exit-code")
    case "$rc" in
        0) ;;
        124) problems+=("the guest timed out (exit 124), see $SHARE/guest-console.log") ;;
        125) problems+=("the guest failed to boot (exit 125), see $SHARE/guest-console.log") ;;
        96) problems+=("the guest could not write to the share (exit 96)") ;;
        97) problems+=("SoftRoCE set-up failed in the guest (exit 97: rdma_rxe/rxe0), see $SHARE/guest-console.log") ;;
        98) problems+=("the share held no job.sh (exit 98)") ;;
        *) problems+=("the guest job failed (exit $rc): $(grep FAILED "$SHARE/results/summary.txt" 2>/dev/null |
                                                           tr '\n' ' ')") ;;
    esac
fi

# Reads one attribute of the first <testsuite> element of a JUnit XML report.
attribute()
{
    local name=$1 file=$2
    grep -o '<testsuite [^>]*>' "$file" | head -1 | grep -o " $name=\"[0-9]*\"" | grep -o '[0-9]\+' || echo 0
}

total=0 failed=0 skipped=0 reports=0
while IFS= read -r -d '' report
do
    reports=$(( reports + 1 ))
    t=$(attribute tests "$report")
    f=$(( $(attribute failures "$report") + $(attribute errors "$report") ))
    s=$(attribute skipped "$report")
    echo "report ${report#"$SHARE"/}: $t tests, $f failed, $s skipped"
    total=$(( total + t ))
    failed=$(( failed + f ))
    skipped=$(( skipped + s ))
    if [ "$f" -gt 0 ]
    then
        # name the failed tests (the last <testcase> opened before each <failure> or <error>) with the first 600
        # characters of the failure's message and of its first three causes with up to 20 lines each (a node's
        # start failure quotes the node's log there): CI keeps only this output, not the guest's reports
        awk 'match($0, /<testcase name="[^"]*" classname="[^"]*"/) { t = substr($0, RSTART + 10, RLENGTH - 10) }
             /<(failure|error)[ >]/ && t != "" {
               print "  FAILED " t; t = ""; body = 1; causes = 0
               if (match($0, /message="[^"]*"/)) { print "    message: " substr($0, RSTART + 9, (RLENGTH - 10 > 600) ? 600 : RLENGTH - 10) }
             }
             body && /^[ \t]*at / { more = 0 }
             body && more > 0 { more--; print "      " substr($0, 1, 300) }
             body && /Caused by:/ && causes < 3 { causes++; more = 20; print "    " substr($0, index($0, "Caused by:"), 600) }
             /<\/(failure|error)>/ { body = 0; more = 0 }' "$report"
    fi
done < <(find "$SHARE/reports" -name 'TEST-*.xml' -print0 2>/dev/null | sort -z)

# JVMs a JUnit run left running (guest-job.sh's rdmakv-junit stops them and lists them in leftover.txt)
for leftover in "$SHARE"/reports/*/leftover.txt
do
    [ -f "$leftover" ] || continue
    echo "reports/$(basename "$(dirname "$leftover")"): processes left running after the run (stopped):"
    sed 's/^/  /' "$leftover" | head -10
done

# native_count FILE PATTERN: lines of FILE with PATTERN (0 when the file is missing).
# rdmakv-junit ran the failed classes of a run once more after a JVM crashed in compiled code (an emulation fault):
# say so, with the crash and what the first run saw; the second run's reports are the ones counted above.
for first in "$SHARE"/reports/*/first-run
do
    [ -d "$first" ] || continue
    run_dir=$(dirname "$first")
    echo "reports/${run_dir#"$SHARE"/reports/}: a JVM crashed in the guest (an emulation fault in compiled code); the" \
        "classes that failed ran once more (counted above from rerun/); the first run's failures were:"
    for crash in "$run_dir"/hs_err_pid*.log
    do
        [ -f "$crash" ] && echo "  crash $(basename "$crash"): $(grep -m1 -o 'SIG[A-Z]* (0x[0-9a-f]*)' "$crash")" \
            "$(grep -m1 '^# Problematic frame' -A1 "$crash" | tail -1)"
    done
    cat "$first"/*.first 2>/dev/null | awk 'match($0, /<testcase name="[^"]*" classname="[^"]*"/) { t = substr($0, RSTART + 10, RLENGTH - 10) }
        /<(failure|error)[ >]/ && t != "" { print "  first run FAILED " t; t = "" }'
done

native_count()
{
    [ -f "$1" ] || { echo 0; return; }
    grep -c -- "$2" "$1" || true
}

ffm_leg=0 jna_leg=0 ffm_leg_runs="" jna_leg_runs=""
bindings="$SHARE/results/native-bindings.properties"
[ -d "$SHARE/results" ] && echo "# native calls logged per JUnit run (verify-guest-results.sh)" > "$bindings"
for java_txt in "$SHARE"/reports/*/java.txt
do
    [ -f "$java_txt" ] || continue
    dir=$(dirname "$java_txt")
    run=$(basename "$dir")
    feature=$(sed -n 's/^feature=//p' "$java_txt")
    [[ "$feature" =~ ^[0-9]+$ ]] || { problems+=("reports/$run: no JDK feature release in java.txt"); continue; }
    ffm=$(native_count "$dir/output.log" "native calls: FFM (JDK $feature)")
    jna=$(native_count "$dir/output.log" "native calls: JNA")
    echo "native calls in reports/$run (JDK $feature): FFM $ffm, JNA $jna"
    [ -f "$bindings" ] && printf '%s.jdk=%s\n%s.ffm=%s\n%s.jna=%s\n' "$run" "$feature" "$run" "$ffm" "$run" "$jna" >> "$bindings"
    # Only the legs' own runs are judged: the container runs' output carries the containers' logs (JRE 17 there).
    case $run in
        tagged|named|unprivileged)
            [ "$feature" -ge 22 ] || problems+=("reports/$run ran on JDK $feature, not on the guest's JDK 22+")
            [ "$jna" -eq 0 ] || problems+=("reports/$run ran on JDK $feature but logged 'native calls: JNA' $jna time(s)")
            ffm_leg=$(( ffm_leg + ffm ))
            ffm_leg_runs="$ffm_leg_runs $run" ;;
        jdk17)
            [ "$feature" -lt 22 ] || problems+=("reports/$run ran on JDK $feature, not on the guest's JDK 17")
            [ "$(native_count "$dir/output.log" "native calls: FFM")" -eq 0 ] ||
                problems+=("reports/$run ran on JDK $feature but logged 'native calls: FFM'")
            jna_leg=$(( jna_leg + $(native_count "$dir/output.log" "native calls: JNA (JDK $feature") ))
            jna_leg_runs="$jna_leg_runs $run" ;;
    esac
done
if [ -n "$ffm_leg_runs" ]
then
    echo "JDK 22+ leg ($ffm_leg_runs ): 'native calls: FFM' logged $ffm_leg time(s)"
    [ "$ffm_leg" -gt 0 ] || problems+=("the verbs suites on JDK 22+ ($ffm_leg_runs ) never logged 'native calls: FFM'")
fi
if [ -n "$jna_leg_runs" ]
then
    echo "JDK 17 leg ($jna_leg_runs ): 'native calls: JNA (JDK 17' logged $jna_leg time(s)"
    [ "$jna_leg" -gt 0 ] || problems+=("the JDK 17 leg ($jna_leg_runs ) never logged 'native calls: JNA'")
fi
if [ -f "$bindings" ]
then
    printf 'leg.ffm.runs=%s\nleg.ffm.lines=%s\nleg.jna.runs=%s\nleg.jna.lines=%s\n' "${ffm_leg_runs# }" "$ffm_leg" \
        "${jna_leg_runs# }" "$jna_leg" >> "$bindings"
fi

[ "$reports" -gt 0 ] || problems+=("no JUnit XML report came back from the guest (under $SHARE/reports)")
[ "$failed" -eq 0 ] || problems+=("$failed test(s) failed in the guest")
[ "$reports" -eq 0 ] || [ "$total" -gt 0 ] || problems+=("the guest ran no test")

if [ -f "$SHARE/results/perftest.properties" ]
then
    echo "perftest (results/perftest.properties):"
    grep -v '^#' "$SHARE/results/perftest.properties" | sed 's/^/  /'
fi
if [ -d "$SHARE/results" ]
then
    echo "JDK 22+ leg (FFM):"
    "$(dirname "$0")/verbs-targets.sh" "$SHARE/results" || echo "(verbs-targets.sh could not summarise the figures)"
fi
if [ -f "$SHARE/results/jdk17/rdmakv.properties" ]
then
    echo "JDK 17 leg (JNA; same boot, same perftest baselines and RocksDB write):"
    "$(dirname "$0")/verbs-targets.sh" "$SHARE/results/jdk17" || echo "(verbs-targets.sh could not summarise the JDK 17 figures)"
fi
if [ -f "$SHARE/results/verbs-counters.properties" ]
then
    # VerbsFastPathCountersTest's windows (docs/transport.md, "Fast-path counters"): values only, the test asserts.
    echo "verbs fast-path counters (results/verbs-counters.properties):"
    grep -E '\.(sends|reads|sendDoorbells|signaledSends|inlineSends|recvs|recvDoorbells|systemCalls|postsPerDoorbell|signaledShare|inlineShare|recvsPerDoorbell|completionsPerPoll)=' \
        "$SHARE/results/verbs-counters.properties" | sed 's/^/  /'
fi
if [ -f "$SHARE/results/doctor.txt" ]
then
    echo "rdmakv doctor (results/doctor.txt): $(grep '^verdict:' "$SHARE/results/doctor.txt" || echo 'no verdict line')"
fi
[ -f "$SHARE/boot-timing.txt" ] && cat "$SHARE/boot-timing.txt"

echo "softroce: $(( total - failed - skipped )) passed, $failed failed, $skipped skipped"
if [ ${#problems[@]} -gt 0 ]
then
    printf '[softroce] FAILED: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "[softroce] guest tests passed"
