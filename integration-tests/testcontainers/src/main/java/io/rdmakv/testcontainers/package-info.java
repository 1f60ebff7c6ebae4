/**
 * rdmakv in Docker containers for tests (Testcontainers): {@link io.rdmakv.testcontainers.RdmakvContainer}, one
 * node with its credential, transport, pool and any setting, ready on the node's READY line, with
 * {@code getSeedAddress()} for a client; {@link io.rdmakv.testcontainers.RdmakvCluster}, a replicated cluster on its
 * own network. They run the server image built from {@code docker/Dockerfile}; no rdmakv class is needed here.
 */
package io.rdmakv.testcontainers;
