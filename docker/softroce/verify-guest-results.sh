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
        # name the failed tests: the last <testcase> opened before each <failure> or <error>
        awk 'match($0, /<testcase name="[^"]*" classname="[^"]*"/) { t = substr($0, RSTART + 10, RLENGTH - 10) }
             /<(failure|error)[ >]/ && t != "" { print "  FAILED " t; t = "" }' "$report"
    fi
done < <(find "$SHARE/reports" -name 'TEST-*.xml' -print0 2>/dev/null | sort -z)

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
    "$(dirname "$0")/verbs-targets.sh" "$SHARE/results" || echo "(verbs-targets.sh could not summarise the figures)"
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
