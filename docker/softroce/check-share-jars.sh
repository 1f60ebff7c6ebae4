#!/bin/bash
# check-share-jars.sh - fails before the guest boots when the share's jars lack the FFM classes (issue 28).
#
#   docker/softroce/check-share-jars.sh <share-dir>
#
# The guest runs its verbs suites on JDK 22+ with -Drdmakv.native=ffm, which needs the transport's and memory-pool's
# META-INF/versions/22: only a host build on JDK 22+ writes them (the modules' jdk22-ffm profiles). A build on JDK 17
# would make every verbs test of that leg fail after half an hour of emulation; this says so in a second instead.
# The entry names of a jar are stored uncompressed, so grep finds them without unzip.
set -uo pipefail
[ $# -eq 1 ] && [ -d "$1/lib" ] || { echo "usage: $0 <share-dir> (with lib/)" >&2; exit 2; }
LIB=$1/lib
problems=0
check()
{
    local pattern=$1 entry=$2 jar
    jar=$(find "$LIB" -maxdepth 1 -name "$pattern" ! -name '*-tests.jar' ! -name '*-sources.jar' | head -1)
    if [ -z "$jar" ]
    then
        echo "[softroce] ERROR: no $pattern in $LIB" >&2
        problems=1
    elif ! grep -qa "$entry" "$jar"
    then
        echo "[softroce] ERROR: $(basename "$jar") has no $entry: it was built on a JDK older than 22, so the" \
             "guest's JDK 25 leg cannot use FFM. Build with JAVA_HOME set to a JDK 22+, e.g." \
             "JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -B -Psoftroce -pl integration-tests -am verify" \
             "(.ci/run does)." >&2
        problems=1
    else
        echo "[softroce] $(basename "$jar"): $entry present"
    fi
}
check 'rdmakv-transport-*.jar' META-INF/versions/22/io/rdmakv/transport/libc/NativeBindings.class
check 'rdmakv-memory-pool-*.jar' META-INF/versions/22/io/rdmakv/pool/MappingBindings.class
exit $problems
