/**
 * {@code rdmakv backup} / {@code restore}: a node's keys as of one instant (pages of one store snapshot, SCAN) into a
 * data directory, and back into a running node as PUTs. A tool's side of the data plane; never loaded by a node.
 */
package io.rdmakv.server.backup;
