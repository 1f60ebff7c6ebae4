#!/usr/bin/env python3
"""Summarise shm-put.sh's JSON: per configuration each run's p50/p99 in order, the median p50, and the ratio of the
median p50 to the median RocksDB write alone (from the run log lines in OUT_DIR/log, if saved there).
Usage: shm-put-summary.py [OUT_DIR]"""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/rdmakv-shm-put"
rocks = []
log = os.path.join(out, "log")
if os.path.exists(log):
    rocks = [float(m) for m in re.findall(r"RocksDB write alone .*?p50 ([0-9.]+) us", open(log).read())]
floor = statistics.median(rocks) if rocks else None
if rocks:
    print(f"{'rocksdb-write-alone':20s} p50 {' / '.join(f'{r:.1f}' for r in rocks)} us, median {floor:.1f} us")
for config in ["shm-node", "default-shm", "default-tcp", "shm-node-rpcget", "default-shm-rpcget"]:
    files = sorted(glob.glob(os.path.join(out, config + "-[0-9]*.json")),
                   key=lambda f: int(re.search(r"-(\d+)\.json$", f).group(1)))
    if not files:
        continue
    runs = []
    for f in files:
        r = json.load(open(f))
        ops = r["operations"]
        o = ops.get("PUT") or ops.get("GET")
        runs.append((o["p50Us"], o["p99Us"], r.get("serverCpuUsPerOp")))
    p50 = statistics.median(x[0] for x in runs)
    ratio = f"  {p50 / floor:.2f}x the RocksDB write" if floor and "rpcget" not in config else ""
    cpu = [x[2] for x in runs if x[2] is not None]
    print(f"{config:20s} p50 {' / '.join(f'{x[0]:.1f}' for x in runs)} us (median {p50:.1f}), "
          f"p99 {' / '.join(f'{x[1]:.0f}' for x in runs)} us, node CPU/op median "
          f"{statistics.median(cpu):.1f} us{ratio}" if cpu else "")
