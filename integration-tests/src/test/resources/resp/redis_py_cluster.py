"""Debian's python3-redis (redis-py) cluster client against an rdmakv cluster's RESP ports.

Usage: python3 redis_py_cluster.py HOST:PORT [HOST:PORT ...]

Learns the slots from the seeds (CLUSTER SLOTS), routes each key by CRC16 itself, writes and reads KEYS keys, MSET/MGET
within one hash tag, DEL, SCAN of every node (scan_iter: each node's cursor parsed with int()), and prints one line
"keys=N read=N nodes=N tagged=OK deleted=N scanned=N" (exit 0), or the first error.
"""
import sys

from redis.cluster import ClusterNode, RedisCluster

KEYS = 300


def main(seeds):
    nodes = [ClusterNode(h, int(p)) for h, p in (s.rsplit(":", 1) for s in seeds)]
    rc = RedisCluster(startup_nodes=nodes, decode_responses=True, socket_timeout=60)
    for i in range(KEYS):
        assert rc.set("py:%d" % i, "value-%d" % i) is True, "SET py:%d" % i
    read = 0
    for i in range(KEYS):
        got = rc.get("py:%d" % i)
        assert got == "value-%d" % i, "GET py:%d -> %r" % (i, got)
        read += 1
    owners = {rc.get_node_from_key("py:%d" % i).name for i in range(KEYS)}
    assert rc.mset_nonatomic({"{py}.a": "1", "{py}.b": "2"}) is not None
    assert rc.mget_nonatomic(["{py}.a", "{py}.b"]) == ["1", "2"], "MGET of one hash tag"
    deleted = rc.delete("py:0")
    assert rc.get("py:0") is None, "GET after DEL"
    # Every node answers SCAN with the keys of the hash slots it is the primary of, so scanning every node returns
    # each key once. redis-py's default target (its primaries) would miss nodes: it takes a node's role from its
    # first entry in CLUSTER SLOTS, and an rdmakv node is the primary of some ranges and a backup of others.
    scanned = set(rc.scan_iter(match="py:*", count=50, target_nodes=RedisCluster.ALL_NODES))
    missing = {"py:%d" % i for i in range(1, KEYS)} - scanned
    assert not missing and len(scanned) == KEYS - 1, "SCAN: missing %r, extra %r" % (
        sorted(missing)[:5], sorted(scanned - {"py:%d" % i for i in range(1, KEYS)})[:5])
    print("keys=%d read=%d nodes=%d tagged=OK deleted=%d scanned=%d" % (KEYS, read, len(owners), deleted,
                                                                        len(scanned)))
    rc.close()


if __name__ == "__main__":
    main(sys.argv[1:])
