/**
 * Replication of a slot range's writes from its primary to its backups over the node's own transport
 * ({@link io.rdmakv.server.replication.ReplicatingWritePath}, a decorator of the local write path), the replica's
 * epoch check ({@link io.rdmakv.server.replication.ReplicaGate}) and window of what it applied from each sender
 * ({@link io.rdmakv.server.replication.ReplicaHistory}), the catch-up of a learner
 * ({@link io.rdmakv.server.replication.CatchUp}) and a new primary's reconcile of the backups that stay in sync
 * ({@link io.rdmakv.server.replication.Reconciles}, whose ranges {@link io.rdmakv.server.replication.HeldWhileReconciling}
 * holds); the replica side ({@link io.rdmakv.server.replication.ReplicaRequests}) and the write ids of client writes
 * ({@link io.rdmakv.server.replication.WriteIds}). {@link io.rdmakv.server.replication.Replication} builds the chain
 * of client writes. It reads the configuration through
 * {@link io.rdmakv.server.cluster.ClusterView} and asks it for in-sync changes; it never decides them. See
 * docs/replication.md.
 */
package io.rdmakv.server.replication;
