/**
 * Mixed fleets: a node serving several transports at once and clients choosing the best one both sides have
 * ({@code MixedTransportsTest} on the host with tcp + shm; {@code MixedFleetVerbsTest} in the SoftRoCE guest with
 * verbs + tcp).
 */
package io.rdmakv.it.fleet;
