/**
 * The tools' side of {@code rdmakv backup} / {@code restore} (the commands are cli's {@code cli.backup}): a node's keys
 * as of one instant (pages of one store snapshot, SCAN) into a data directory or any sink, and back into a running
 * node as PUTs. Never loaded by a node.
 */
package io.rdmakv.server.backup;
