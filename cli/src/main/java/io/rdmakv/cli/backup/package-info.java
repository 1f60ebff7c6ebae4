/**
 * {@code rdmakv backup} / {@code restore}: of one node ({@code --server}: a data directory, see kvstore-server's
 * {@code server.backup}), or of a whole cluster ({@code --cluster}: one file per slot range read from its primary's
 * store snapshot, a JSON manifest, and a restore through {@code KvClient} into a cluster of any size, resumable and
 * verified).
 */
package io.rdmakv.cli.backup;
