/**
 * Fault tests with real processes: clients' calls recorded in a history and checked per key for linearizability
 * ({@code it/support/history}) while faults are injected ({@code it/support/faults}): kill -9, SIGSTOP past the lease,
 * partitions in network namespaces, fast and slow clocks. {@link io.rdmakv.it.faults.SingleNodeHistoryTest} runs in
 * the default suite; the cluster tests are tagged {@code cluster-faults} and run under {@code -Pfaults}.
 */
package io.rdmakv.it.faults;
