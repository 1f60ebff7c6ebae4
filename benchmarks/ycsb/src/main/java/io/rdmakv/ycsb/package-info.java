/**
 * YCSB bindings: {@link io.rdmakv.ycsb.RdmakvClient} (rdmakv over its {@code KvClient}) and
 * {@link io.rdmakv.ycsb.RedisClient} (redis over Jedis), both storing a record as one value in
 * {@link io.rdmakv.ycsb.RecordCodec}'s encoding with the semantics of {@link io.rdmakv.ycsb.RecordDb}, so the two run
 * side by side under YCSB's generator. benchmarks/README.md ("YCSB") says how to run them; benchmarks/compare.sh
 * {@code --ycsb} compares them.
 */
package io.rdmakv.ycsb;
