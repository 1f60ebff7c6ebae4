#!/bin/bash
# guest-containers.sh - the guest job's container step (guest-job.sh runs it; needs the image's docker.io).
#
# Runs as root in the guest, from the share. Steps, each timed into results/containers.properties:
#   engine   start dockerd (no iptables: nothing leaves the guest; published ports go through docker-proxy)
#   import   `docker import` the base image tar (build-base-image.sh, shared read-only by run-in-guest.sh as the
#            9p tag "rdmakvbase") as rdmakv-base:bookworm
#   build    `docker build` docker/Dockerfile FROM it (no network: the base has every package) as rdmakv:dev,
#            with BuildKit, the classic builder if that fails
#   smoke    one node from the image, PUT/GET from the guest's CLI through a published port (`docker run -p`); not
#            in the default steps: RdmakvContainerTest proves the same through Testcontainers' mapped ports
#   compose  docker/docker-compose.yml's 3-node cluster up, the cluster test (RdmakvClusterContainerTest) against it
#            through the nodes' advertised addresses                               -> reports/containers-cluster
#   junit    the other JUnit tests tagged `containers` (Testcontainers over the engine's socket) -> reports/containers
# RDMAKV_JOB_CONTAINER_STEPS (default "junit compose") picks the steps after the build and their order.
# RDMAKV_JOB_DOCKER_TCP=1 also serves the engine on tcp://0.0.0.0:2375 (run-in-guest.sh forwards a host loopback
# port to it when RDMAKV_SOFTROCE_DOCKER_PORT is set) and RDMAKV_JOB_CONTAINERS_HOLD=SECONDS keeps the guest up
# that long after the step, for tests run from the host. Exit code 0 only when every step passed.
set -u
SHARE=/mnt/host
RESULTS=${RDMAKV_RESULTS:-$SHARE/results}
REPORTS=${RDMAKV_REPORTS:-$SHARE/reports}
PROPS="$RESULTS/containers.properties"
BASE_TAG=rdmakv-base:bookworm
IMAGE=rdmakv:dev
FAILED=0
# The JVMs in the containers run as the guest's own do under emulation (C1 only, serial collector).
# RDMAKV_JOB_CONTAINER_JAVA_OPTS.
export RDMAKV_CONTAINER_JAVA_OPTS=${RDMAKV_JOB_CONTAINER_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}
# How long a node may take to print READY. A node's start is CPU-bound under emulation: measured 2026-12-01 at host
# load ~20, a container node spent 3.5 min before its first log line (class loading from the 119 MB launcher jar,
# interpreted and C1 code) and reached its pool warm-up after 5 min 7 s, still progressing, when the old 300 s
# deadline removed it. RDMAKV_JOB_CONTAINER_READY_SECONDS.
READY_SECONDS=${RDMAKV_JOB_CONTAINER_READY_SECONDS:-900}
# The clients' connect and request timeout (--timeout-ms): a node's first requests run its cold code, and the CLI's
# 5 s default ran out on the smoke node's first PUT through docker-proxy (measured 2026-12-01, READY after 134 s).
# The smoke node gives its clients as long for their HELLO (auth.handshakeTimeoutMs, default 5000): the guest's
# cold client JVM took longer than 5 s from connect to HELLO ("MALFORMED: no good HELLO within 5000 ms").
TIMEOUT_MS=${RDMAKV_JOB_CONTAINER_CLIENT_TIMEOUT_MS:-60000}
# The compose nodes' coordination timeouts under emulation: Raft election timeout (cluster.electionTimeoutMs, 5-10 s
# instead of 0.8-1.6 s) and node lease (cluster.leaseMs, 60 s instead of 2 s; twice the election timeout stays well
# under it). With the defaults the three nodes never committed their joins (leaders stepped down after 1.6 s without
# their followers' answers, which took 2-5 s; 15 terms later the group's log held 3 entries). With 5 s and 30 s the
# joins committed, but a join's answer came 29 s or more after its apply and the leader declared two leases over
# before their first renewals (failovers, rejoins; the test passed through them): docker/softroce/README.md,
# "Containers in the guest".
# RDMAKV_JOB_COMPOSE_ELECTION_MS, RDMAKV_JOB_COMPOSE_LEASE_MS.
ELECTION_MS=${RDMAKV_JOB_COMPOSE_ELECTION_MS:-5000}
LEASE_MS=${RDMAKV_JOB_COMPOSE_LEASE_MS:-60000}
mkdir -p "$RESULTS"
echo "# the container step in the SoftRoCE guest (docker/softroce/guest-containers.sh); seconds under emulation" > "$PROPS"

record()
{
    echo "$1=$2" >> "$PROPS"
    echo "containers: $1=$2"
}

# step <name> <command...>: runs it, records its time and outcome; a failed step fails the container step.
step()
{
    local name=$1 t0 rc
    shift
    echo
    echo "----- containers: $name -----"
    t0=${EPOCHREALTIME/./}
    "$@"
    rc=$?
    record "$name.seconds" "$(( (${EPOCHREALTIME/./} - t0) / 1000000 ))"
    record "$name.result" "$([ $rc = 0 ] && echo passed || echo "FAILED (exit $rc)")"
    [ $rc = 0 ] || FAILED=1
    return $rc
}

engine()
{
    local hosts=(-H unix:///var/run/docker.sock) deadline attempt
    [ "${RDMAKV_JOB_DOCKER_TCP:-0}" = 1 ] && hosts+=(-H tcp://0.0.0.0:2375)
    modprobe overlay 2>/dev/null
    # containerd first, on its own: dockerd gives the containerd it starts itself a fixed time to come up, which an
    # emulated guest on a loaded host can exceed (dockerd then exits: "timeout waiting for containerd to start").
    containerd > "$RESULTS/containerd.log" 2>&1 &
    deadline=$(( SECONDS + 300 ))
    until [ -S /run/containerd/containerd.sock ]
    do
        [ $SECONDS -lt $deadline ] || { tail -20 "$RESULTS/containerd.log"; return 1; }
        sleep 0.5
    done
    # No iptables (the guest reaches nothing outside anyway; docker-proxy serves published ports), overlay2 on
    # the guest's ext4 root. Containers get the open-file limit a systemd-started engine gives them (this shell's
    # 4096 is below what a node's default connection limits need: its start-up warns). A dockerd that gives up under
    # load is started once more.
    for attempt in 1 2
    do
        dockerd "${hosts[@]}" --containerd=/run/containerd/containerd.sock --iptables=false --ip6tables=false \
            --storage-driver=overlay2 --default-ulimit nofile=1048576:1048576 >> "$RESULTS/dockerd.log" 2>&1 &
        local pid=$!
        deadline=$(( SECONDS + 300 ))
        while [ $SECONDS -lt $deadline ] && kill -0 "$pid" 2>/dev/null
        do
            docker info > /dev/null 2>&1 && { docker version | sed 's/^/  /'; return 0; }
            sleep 0.5
        done
        echo "dockerd attempt $attempt did not come up:"
        tail -5 "$RESULTS/dockerd.log"
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    return 1
}

import_base()
{
    mkdir -p /mnt/base
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro rdmakvbase /mnt/base || {
        echo "no base image share (tag rdmakvbase): run docker/softroce/build-base-image.sh on the host"
        return 1
    }
    [ -s /mnt/base/rootfs.tar ] || { echo "no rootfs.tar in the base image share"; return 1; }
    cat /mnt/base/manifest.txt 2>/dev/null | sed 's/^/  /'
    docker import --change 'CMD ["/bin/bash"]' /mnt/base/rootfs.tar "$BASE_TAG" || return 1
    record base.image.bytes "$(docker image inspect -f '{{.Size}}' "$BASE_TAG")"
}

build_image()
{
    local ctx=/tmp/rdmakv-context builder
    rm -rf "$ctx"
    mkdir -p "$ctx/cli/target" "$ctx/bin" "$ctx/docker"
    cp "$SHARE/cli/rdmakv-linux-x86_64.jar" "$ctx/cli/target/rdmakv-linux-x86_64.jar" &&
        cp "$SHARE/cli/rdmakv" "$ctx/bin/rdmakv" && chmod 0755 "$ctx/bin/rdmakv" &&
        cp -r "$SHARE/docker/." "$ctx/docker/" || return 1
    cp "$ctx/docker/Dockerfile.dockerignore" "$ctx/.dockerignore"
    # BuildKit (the engine's own, no buildx needed with 20.10) first: it runs the Dockerfile's one RUN in a container
    # and commits nothing for the metadata instructions, where the classic builder creates and commits a container
    # per instruction. The classic builder when BuildKit fails (RDMAKV_JOB_DOCKER_BUILDKIT=0: the classic one only).
    for builder in buildkit classic
    do
        [ "$builder" = buildkit ] && [ "${RDMAKV_JOB_DOCKER_BUILDKIT:-1}" = 0 ] && continue
        # (the classic builder's context upload progress is one carriage-return line per 0.5 MB: not logged)
        DOCKER_BUILDKIT=$([ "$builder" = buildkit ] && echo 1 || echo 0) \
            docker build --build-arg BASE="$BASE_TAG" --build-arg CDS_TRAIN_SECONDS="${RDMAKV_JOB_CDS_TRAIN_SECONDS:-600}" -f "$ctx/docker/Dockerfile" -t "$IMAGE" \
                $([ "$builder" = buildkit ] && echo --progress=plain) "$ctx" 2>&1 |
            tr '\r' '\n' | grep -v '^Sending build context'
        docker image inspect "$IMAGE" > /dev/null 2>&1 && break
        echo "containers: the $builder build failed"
    done
    docker image inspect "$IMAGE" > /dev/null 2>&1 || return 1
    record build.builder "$builder"
    record server.image.bytes "$(docker image inspect -f '{{.Size}}' "$IMAGE")"
    record server.image.user "$(docker image inspect -f '{{.Config.User}}' "$IMAGE")"
    record server.image.healthcheck "$(docker image inspect -f '{{json .Config.Healthcheck.Test}}' "$IMAGE")"
}

# Waits for a container's READY line (the node's readiness), up to $2 seconds of wall time (each `docker logs` costs
# seconds of the guest's CPU under emulation, which the starting node needs: one look every 5 s, and the bound is a
# deadline, not a count of polls). Prints how long the node took.
wait_ready()
{
    local name=$1 t0=$SECONDS deadline=$(( SECONDS + $2 ))
    while [ $SECONDS -lt $deadline ]
    do
        if docker logs "$name" 2>/dev/null | grep -q '^READY'
        then
            record "ready.$name.seconds" "$(( SECONDS - t0 ))"
            return 0
        fi
        sleep 5
    done
    echo "no READY from $name within ${2}s; its log:"
    docker logs "$name" 2>&1 | tail -20
    return 1
}

# One node, the guest's client through published ports that differ from the bound ones (17400 -> 7400, 17401 ->
# 7401): the node advertises the guest-side address and the published ports (advertised.*), so the data port the
# handshake names is the reachable one.
smoke()
{
    local rc=0 got health i
    docker run -d --name rdmakv-smoke --ulimit memlock=-1:-1 -e RDMAKV_JAVA_OPTS="$RDMAKV_CONTAINER_JAVA_OPTS" -p 127.0.0.1:17400:7400 -p 127.0.0.1:17401:7401 \
        "$IMAGE" server --config /etc/rdmakv/server.properties -S advertised.host=127.0.0.1 \
        -S advertised.controlPort=17400 -S advertised.dataPort=17401 -S auth.handshakeTimeoutMs="$TIMEOUT_MS" > /dev/null ||
        return 1
    wait_ready rdmakv-smoke "$READY_SECONDS" || rc=1
    if [ $rc = 0 ]
    then
        docker exec rdmakv-smoke id | sed 's/^/  user in the container: /'
        # The guest's own JVM client (bin/rdmakv from the share) through the published port.
        RDMAKV_JAR="$SHARE/cli/rdmakv.jar" bash "$SHARE/cli/rdmakv" put --timeout-ms "$TIMEOUT_MS" --server 127.0.0.1:17400 greeting "hello from the guest" ||
            rc=1
        got=$(RDMAKV_JAR="$SHARE/cli/rdmakv.jar" bash "$SHARE/cli/rdmakv" get --timeout-ms "$TIMEOUT_MS" --server 127.0.0.1:17400 greeting) || rc=1
        echo "  get -> '$got'"
        [ "$got" = "hello from the guest" ] || rc=1
        i=$(( SECONDS + 120 ))
        while [ $SECONDS -lt $i ]
        do
            health=$(docker inspect -f '{{.State.Health.Status}}' rdmakv-smoke)
            [ "$health" = healthy ] && break
            sleep 1
        done
        record smoke.health "$health"
        [ "$health" = healthy ] || rc=1
    fi
    docker rm -f rdmakv-smoke > /dev/null 2>&1
    return $rc
}

# docker/docker-compose.yml's 3-node cluster, checked by the cluster test (RdmakvClusterContainerTest, seeded with
# the nodes' advertised addresses on the compose network, which the guest as the Docker host reaches): keys written
# through every node are read back through node3 alone. The guest starts one cluster, not two: the junit step
# leaves that test out when the compose step is among the steps.
compose()
{
    local override="$RESULTS/compose-guest.yml" n
    # The guest's cold client JVM: 60 s for its HELLO (as the smoke node) and 120 s for its ATTACH after the WELCOME
    # (auth.ticketTtlMs, default 30 s: run 2 of 2026-12-02 took 34 s and the cluster test's client was refused,
    # "credentials missing or rejected"). The emulated guest's coordination timeouts (ELECTION_MS, LEASE_MS above).
    {
        echo "services:"
        for n in 1 2 3
        do
            printf '  node%s:\n    command: ["server", "--config", "/etc/rdmakv/node.properties", "-S", "auth.handshakeTimeoutMs=%s", "-S", "auth.ticketTtlMs=%s", "-S", "cluster.electionTimeoutMs=%s", "-S", "cluster.leaseMs=%s"]\n' \
                "$n" "$TIMEOUT_MS" "$(( TIMEOUT_MS * 2 ))" "$ELECTION_MS" "$LEASE_MS"
        done
    } > "$override"
    record compose.electionTimeoutMs "$ELECTION_MS"
    record compose.leaseMs "$LEASE_MS"
    local dc=(env RDMAKV_JAVA_OPTS="$RDMAKV_CONTAINER_JAVA_OPTS" docker-compose -p rdmakv -f "$SHARE/docker/docker-compose.yml" -f "$override") rc=0
    local up t0=$SECONDS
    # `up` in the background: docker-compose (Python) got no CPU for minutes under emulation while the three JVMs
    # started (run 1 of 2026-12-02 printed nothing for 10 min); the nodes' READY lines are what count.
    "${dc[@]}" up -d --no-build node1 node2 node3 > "$RESULTS/compose-up.log" 2>&1 &
    up=$!
    # One deadline for the three (they start together).
    for n in 1 2 3
    do
        wait_ready "rdmakv_node${n}_1" "$(( t0 + READY_SECONDS - SECONDS > 1 ? t0 + READY_SECONDS - SECONDS : 1 ))" || rc=1
    done
    if [ $rc != 0 ]
    then
        docker ps -a | sed 's/^/  /'
    fi
    wait "$up" || rc=1
    record compose.up.seconds "$(( SECONDS - t0 ))"
    sed 's/^/  compose: /' "$RESULTS/compose-up.log"
    if [ $rc = 0 ]
    then
        containers_junit containers-cluster -Drdmakv.it.clusterSeeds=172.30.74.11:7400,172.30.74.12:7400,172.30.74.13:7400 \
            --select-class io.rdmakv.it.docker.RdmakvClusterContainerTest --fail-if-no-tests || rc=1
    fi
    compose_evidence
    "${dc[@]}" down -v > /dev/null 2>&1
    return $rc
}

# What the compose cluster did, pass or fail: each node's whole log (results/compose-nodeN.log), counts of its
# coordination events, its first join, and `rdmakv cluster status` from the guest's CLI
# (results/compose-cluster-status.txt).
compose_evidence()
{
    local n log
    for n in 1 2 3
    do
        log="$RESULTS/compose-node$n.log"
        docker logs "rdmakv_node${n}_1" > "$log" 2>&1
        record "compose.node$n.leaderships" "$(grep -c "became the coordination group's leader" "$log")"
        record "compose.node$n.lostLeadership" "$(grep -c 'Lost leadership' "$log")"
        record "compose.node$n.leaseLost" "$(grep -c 'lost its lease' "$log")"
        record "compose.node$n.leaseExpiredDeclared" "$(grep -c 'lease expired' "$log")"
        record "compose.node$n.joined" "$(grep -m1 'joined the cluster' "$log" | cut -c1-120)"
        grep -E "became the coordination|Lost leadership|joined the cluster|lost its lease|lease expired|READY" "$log" |
            cut -c1-200 | head -40 | sed "s/^/  node$n: /"
    done
    RDMAKV_JAR="$SHARE/cli/rdmakv.jar" timeout 300 bash "$SHARE/cli/rdmakv" cluster status --server 172.30.74.11:7400 \
        --timeout-ms "$TIMEOUT_MS" > "$RESULTS/compose-cluster-status.txt" 2>&1
    record compose.clusterStatus.exit "$?"
    sed 's/^/  cluster status: /' "$RESULTS/compose-cluster-status.txt" | head -40
}

# containers_junit <report-name> [-Dname=value...] <launcher options...>: JUnit with Testcontainers on the guest's
# engine -> reports/<report-name>.
containers_junit()
{
    local report=$1 props=()
    shift
    while [ $# -gt 0 ] && [ "${1#-D}" != "$1" ]
    do
        props+=("$1")
        shift
    done
    [ -x /usr/local/bin/rdmakv-junit ] || { echo "no rdmakv-junit (the guest job writes it)"; return 1; }
    # Testcontainers against the guest's engine: no registry, so no Ryuk and no start-up checks (they pull images);
    # Docker 20.10 speaks API 1.41 (Testcontainers 2 asks for 1.44 unless told).
    printf 'checks.disable=true\nryuk.disabled=true\n' > /root/.testcontainers.properties
    echo "api.version=1.41" > /root/.docker-java.properties
    DOCKER_HOST=unix:///var/run/docker.sock TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true \
    RDMAKV_JAVA_OPTS="$RDMAKV_JAVA_OPTS -Dapi.version=1.41 -Drdmakv.it.image=$IMAGE -Drdmakv.it.containerStartupSeconds=$READY_SECONDS -Drdmakv.it.containerHandshakeMs=$TIMEOUT_MS ${props[*]}" \
        RDMAKV_JUNIT_LEFTOVERS=keep rdmakv-junit "$report" "$@"
}

# The tests tagged `containers`; the cluster test only when the compose step does not run it.
junit()
{
    local skip=()
    case " ${STEPS} " in *" compose "*) skip=(--exclude-classname '.*\.RdmakvClusterContainerTest') ;; esac
    containers_junit containers --scan-class-path "$RDMAKV_TEST_CLASSES" --include-tag containers "${skip[@]}" \
        --fail-if-no-tests
}

STEPS=${RDMAKV_JOB_CONTAINER_STEPS:-junit compose}
step engine engine || { echo "containers: no engine, the other steps cannot run"; exit 1; }
# RDMAKV_JOB_CONTAINER_STEPS: which of the steps after the build run, in that order.
if step import import_base && step build build_image
then
    for part in $STEPS
    do
        case "$part" in
            smoke|compose|junit) step "$part" "$part" ;;
            *) echo "containers: unknown step '$part' in RDMAKV_JOB_CONTAINER_STEPS"; FAILED=1 ;;
        esac
    done
fi
if [ -n "${RDMAKV_JOB_CONTAINERS_HOLD:-}" ]
then
    echo "containers: holding the engine for ${RDMAKV_JOB_CONTAINERS_HOLD}s (tcp 2375 in the guest)"
    sleep "$RDMAKV_JOB_CONTAINERS_HOLD"
fi
docker ps -aq | xargs -r docker rm -f > /dev/null 2>&1
exit $FAILED
