/**
 * Issue 5's verbs targets, measured inside the SoftRoCE guest in the same boot as perftest's baselines
 * ({@code results/perftest.properties}): the store's own latencies and server CPU ({@code rdmakv.properties}), the
 * RocksDB write alone ({@code rocksdb.properties}) and a verbs node's start-up with data ({@code startup.properties}).
 * The host-side {@code docker/softroce/verbs-targets.sh} (called by {@code verify-guest-results.sh}) sets them side by
 * side as the "#5 verbs targets" table.
 *
 * <p>The tests carry the JUnit tag {@value io.rdmakv.it.softroce.SoftRoceGuest#TAG}. They record figures and never
 * assert on time (emulation on a shared host); what they assert is the mechanism behind each figure (every measured
 * GET took the path it stands for, the server handled no request during one-sided GETs, values read back are the ones
 * written).
 *
 * <p>Depends on the store (client, server process, RocksDB store); the package {@code io.rdmakv.it.softroce}, which
 * proves the guest itself, must not depend on this one.
 */
package io.rdmakv.it.figures;
