/**
 * {@code rdmakv cluster}: start a replicated cluster of node processes on one machine, and the operator's commands
 * (status, failover, moves) sent to any node as ADMIN control frames.
 */
package io.rdmakv.cli.cluster;
