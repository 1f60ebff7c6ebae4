/**
 * The cluster's configuration as the data path sees it: members, slot ranges with primaries, backups and epochs
 * ({@link io.rdmakv.server.cluster.ClusterState}), and the one interface through which a node reads and asks to
 * change it ({@link io.rdmakv.server.cluster.ClusterView}). Decisions are made by Apache Ratis in a cluster and by
 * nobody on a single node; this package never depends on request handling or replication.
 */
package io.rdmakv.server.cluster;
