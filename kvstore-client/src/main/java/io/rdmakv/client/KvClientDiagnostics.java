package io.rdmakv.client;

import java.util.Map;

/**
 * What a {@link KvClient} chose and counted, for operators, tools and tests; obtained from
 * {@link KvClient#diagnostics()}. Nothing here is needed to use the client.
 */
public interface KvClientDiagnostics
{
    /**
     * The transport in use.
     *
     * @return {@code tcp} or {@code verbs}.
     */
    String transport();

    /**
     * Why that transport: the selector's one line naming the choice and why every other lost.
     *
     * @return the selection line as logged at connect.
     */
    String transportSelection();

    /**
     * How GETs are served.
     *
     * @return the configured mode with {@link GetMode#AUTO} resolved: {@link GetMode#ONE_SIDED} or {@link GetMode#RPC}.
     */
    GetMode getMode();

    /**
     * How {@link GetMode#AUTO} resolves on this client's transport (one-sided when it reads natively).
     *
     * @return {@link GetMode#ONE_SIDED} or {@link GetMode#RPC}.
     */
    GetMode autoGetMode();

    /**
     * Memory registrations done by this client's transport: one at connect, flat afterwards.
     *
     * @return the count since the client opened.
     */
    long registrationCount();

    /**
     * This client's counters, without asking any node.
     *
     * @return a snapshot with every {@link ClientCounter}.
     */
    Map<ClientCounter, Long> counters();

    /**
     * One of this client's counters.
     *
     * @param counter which.
     * @return its current value.
     */
    long counter(ClientCounter counter);

    /**
     * Asynchronous requests waiting in the client's queue for a free in-flight slot now.
     *
     * @return 0 .. {@link KvClientBuilder#maxQueuedRequests(int)}.
     */
    int queuedRequests();
}
