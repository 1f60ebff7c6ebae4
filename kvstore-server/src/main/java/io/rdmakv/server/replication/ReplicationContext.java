package io.rdmakv.server.replication;

import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.RangeStore;
import io.rdmakv.transport.Worker;

/**
 * What a node's replication is built with, fixed at start (Aeron's context): its store's slot ranges, the transport
 * its links run on, the cluster secret and TLS settings, and its timings.
 *
 * @param ranges          the store's slot ranges (catch-up copies, reconciles, drops).
 * @param worker          the node's transport worker (replication links are its endpoints).
 * @param transport       the transport's name, offered in the peers' HELLO.
 * @param access          the cluster secret peers present and the node's TLS settings.
 * @param maxMessageBytes largest data-plane message (a REPLICATE of the largest key and value fits).
 * @param timeoutMillis   how long a backup may take to acknowledge before it is asked out of the in-sync set
 *                        ({@code replication.timeoutMs}).
 * @param ackPollMicros   how long the request thread polls for the oldest write's acknowledgements before it sleeps
 *                        ({@code replication.ackPollMicros}).
 * @param counters        the node's counters (reconciles and their fix-ups are counted).
 */
public record ReplicationContext(RangeStore ranges, Worker worker, String transport, PeerAccess access,
    int maxMessageBytes, long timeoutMillis, long ackPollMicros, ServerCounters counters)
{
}
