#!/usr/bin/env python3
"""Summarise shm-figures.sh's JSON: per configuration the runs' p50/p99 (median and range), throughput, node CPU per
op, and the ratios against the local floor and tcp. Usage: shm-figures-summary.py [OUT_DIR]"""
import glob
import json
import os
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/rdmakv-shm-figures"


def runs(prefix):
    rs = []
    for f in sorted(glob.glob(os.path.join(out, prefix + "-*.json"))):
        with open(f) as fh:
            rs.append(json.load(fh))
    return rs


def op(r):
    ops = r["operations"]
    return ops.get("GET") or ops.get("PUT")


def med(values):
    return statistics.median(values) if values else float("nan")


def line(name, rs):
    if not rs:
        return None
    p50 = [op(r)["p50Us"] for r in rs]
    p99 = [op(r)["p99Us"] for r in rs]
    tput = [r["throughput"] for r in rs]
    cpu = [r["serverCpuUsPerOp"] for r in rs if r.get("serverCpuUsPerOp") is not None]
    print(f"{name:28s} p50 {med(p50):8.1f} us [{min(p50):.1f}..{max(p50):.1f}]  p99 {med(p99):9.1f} us "
          f"[{min(p99):.1f}..{max(p99):.1f}]  {med(tput):10,.0f} ops/s  node CPU "
          + (f"{med(cpu):.2f} us/op" if cpu else "-") + f"  (n={len(rs)})")
    return med(p50), med(tput)


for value in (100, 4096):
    floor = line(f"local {value} B", runs(f"local-{value}"))
    for cache in ("cached", "cold"):
        shm = line(f"shm GET {value} B {cache}", runs(f"shm-get-{value}-{cache}"))
        tcp = line(f"tcp GET {value} B {cache}", runs(f"tcp-get-{value}-{cache}"))
        if shm and tcp and floor:
            print(f"{'':28s} shm/local p50 {shm[0] / floor[0]:.1f}x, tcp/shm p50 {tcp[0] / shm[0]:.1f}x")
shm2 = line("shm GET 2 threads", runs("shm-get2t"))
tcp2 = line("tcp GET 2 threads", runs("tcp-get2t"))
if shm2 and tcp2:
    print(f"{'':28s} shm/tcp throughput {shm2[1] / tcp2[1]:.1f}x")
line("shm PUT 100 B", runs("shm-put"))
line("tcp PUT 100 B", runs("tcp-put"))
