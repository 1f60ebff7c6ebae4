/**
 * The client's counters as Micrometer meters, for a service that passes its own {@code MeterRegistry}. Micrometer is
 * an optional dependency of the client: only a service that uses this package needs it on its class path.
 */
package io.rdmakv.client.metrics;
