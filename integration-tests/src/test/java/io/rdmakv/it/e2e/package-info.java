/**
 * The store end to end with real processes: servers started as separate OS processes
 * ({@link io.rdmakv.it.support.ServerProcess}), the public {@code KvClient} in the test JVM, TCP transport on
 * loopback. Basic operations in both GET modes, torn reads under concurrent writers (invariant 1), acknowledged PUTs
 * across {@code kill -9} (invariant 2), pool overflow and eviction, and a multi-node cluster.
 *
 * <p>Must never depend on server internals (no {@code io.rdmakv.server} classes): servers are driven only through
 * their process, their ports and the client, exactly as in production.
 */
package io.rdmakv.it.e2e;
