#!/usr/bin/env python3
"""Is `rdmakv bench` a faithful load generator? Runs it and the peer's own C tool against the SAME server, side by side.

    benchmarks/generator-check.py                                  # redis: 1x1, 50x1, 50x16 GET; 10 ABBA pairs each
    benchmarks/generator-check.py --op set --shapes 50x1,50x16     # SET
    benchmarks/generator-check.py --peer memcached --shapes 1x1,50x1   # memcached against memaslap (no pipelining)
    benchmarks/generator-check.py --pairs 12 --trial 5 --out /tmp/gc

For each shape (connections x requests in flight per connection) it runs PAIRS pairs in ABBA order: `rdmakv bench
--driver resp` (or memcached) and redis-benchmark (or memaslap, from Debian's libmemcached-tools) with the same
connections, pipeline depth, threads, key format (16-byte keys "k000" + 12 digits, the same 100,000 keys, loaded
first), value size and about the same duration. Per trial it records the throughput each tool reports, the server's
CPU time per operation from /proc/<pid>/stat (utime + stime over the run, which no client can distort), the tool's
own CPU per operation, and the 1-minute load average. It prints each pair and the median of the per-pair ratios
(bench / tool) with min, max and interquartile range. Nothing here fails on timing. Loopback only; every process it
starts is stopped on exit. Needs redis-server + redis-benchmark, memcached + memaslap (apt-get install redis-server
memcached libmemcached-tools) and cli/target/rdmakv.jar.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RDMAKV = os.path.join(ROOT, "bin", "rdmakv")
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_port(port, proc, name):
    import socket
    for _ in range(300):
        if proc.poll() is not None:
            sys.exit(f"generator-check: {name} exited during start-up")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"generator-check: {name} did not listen on {port}")


def run_bench(args, port, conns, depth, duration, warmup, load, out_json):
    driver = "resp" if args.peer == "redis" else "memcached"
    workload = "C" if args.op == "get" else "get=0,put=100"
    cmd = [RDMAKV, "bench", "--driver", driver, "-s", f"127.0.0.1:{port}", "--connections", str(conns),
           "--threads", str(min(args.threads, conns)), "--inflight", str(depth), "--workload", workload,
           "--keys", str(args.keys), "--key-size", "16", "--value-size", str(args.value_size),
           "--duration", f"{duration}s", "--warmup", f"{warmup}s", "--no-progress", "--json", out_json,
           "--load" if load else "--no-load"]
    before = children_cpu()
    la = loadavg()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + warmup + 120)
    if done.returncode != 0:
        sys.exit(f"generator-check: bench failed: {done.stdout[-800:]} {done.stderr[-800:]}")
    with open(out_json) as f:
        r = json.load(f)
    return {"tool": "bench", "ops": r["throughput"], "server_cpu_us": r["serverCpuUsPerOp"],
            "tool_cpu_us": r.get("generatorCpuUsPerOp"), "load": la,
            "process_cpu_s": children_cpu() - before}


def run_peer_tool(args, port, server_pid, conns, depth, duration, expected_rate):
    la = loadavg()
    threads = min(args.threads, conns)
    if args.peer == "redis":
        n = max(20000, int(expected_rate * duration))
        if args.op == "get":
            command = ["GET", "k000__rand_int__"]
        else:
            command = ["SET", "k000__rand_int__", "v" * args.value_size]
        cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(conns), "-P", str(depth),
               "-n", str(n), "-r", str(args.keys), "-q"] + (["--threads", str(threads)] if threads > 1 else []) \
            + command
    else:
        n = None
        memaslap = "memcaslap" if shutil.which("memcaslap") else "memaslap"  # Debian's name for memaslap
        cmd = [memaslap, "-s", f"127.0.0.1:{port}", "-T", str(threads), "-c", str(conns),
               "-t", f"{duration}s", "-F", args.memaslap_config, "-X", str(args.value_size)]
        if depth != 1:
            sys.exit("generator-check: memaslap keeps one request in flight per connection; use shapes Nx1")
    before_cpu = cpu_seconds(server_pid)
    before = children_cpu()
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=duration * 20 + 120)
    wall = time.monotonic() - start
    server_cpu = cpu_seconds(server_pid) - before_cpu
    tool_cpu = children_cpu() - before
    text = (done.stdout + done.stderr).replace("\r", "\n")
    if done.returncode != 0:
        sys.exit(f"generator-check: {cmd[0]} failed: {text[-800:]}")
    if args.peer == "redis":
        m = re.findall(r"([0-9.]+) requests per second", text)
        if not m:
            sys.exit(f"generator-check: no rate in redis-benchmark's output: {text[-400:]}")
        ops = float(m[-1])
        total = n
    else:
        m = re.findall(r"Run time: [0-9.]+s Ops: ([0-9]+) TPS: ([0-9]+)", text)
        if not m:
            sys.exit(f"generator-check: no TPS in memaslap's output: {text[-400:]}")
        total, ops = int(m[-1][0]), float(m[-1][1])
    return {"tool": cmd[0], "ops": ops, "server_cpu_us": server_cpu * 1e6 / max(1, total),
            "tool_cpu_us": tool_cpu * 1e6 / max(1, total), "load": la, "wall_s": wall}


def summary(values):
    v = sorted(values)
    if len(v) >= 2:
        q = statistics.quantiles(v, n=4)
        iqr = f", IQR {q[0]:.2f}-{q[2]:.2f}"
    else:
        iqr = ""
    return f"median {statistics.median(v):.2f} (min {v[0]:.2f}, max {v[-1]:.2f}{iqr}, n={len(v)})"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--peer", choices=["redis", "memcached"], default="redis")
    p.add_argument("--op", choices=["get", "set"], default="get")
    p.add_argument("--shapes", default="1x1,50x1,50x16", help="connections x in-flight per connection, comma list")
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--trial", type=float, default=4, help="seconds measured per trial")
    p.add_argument("--warmup", type=float, default=3, help="bench's warm-up seconds (the JVM's JIT)")
    p.add_argument("--threads", type=int, default=2, help="generator threads of both tools")
    p.add_argument("--keys", type=int, default=100000)
    p.add_argument("--value-size", type=int, default=100)
    p.add_argument("--port", type=int, default=17690)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="rdmakv-gencheck-")
    os.makedirs(out, exist_ok=True)
    args.memaslap_config = os.path.join(out, "memaslap.cfg")
    with open(args.memaslap_config, "w") as f:
        get_share = 1.0 if args.op == "get" else 0.0
        f.write(f"key\n16 16 1\nvalue\n{args.value_size} {args.value_size} 1\n"
                f"cmd\n0 {1.0 - get_share:.1f}\n1 {get_share:.1f}\n")
    port = args.port
    if args.peer == "redis":
        server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no", "--io-threads", "1", "--protected-mode", "no"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        user = ["-u", "root"] if os.getuid() == 0 else []
        server = subprocess.Popen(["memcached", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "1024",
                                   "-t", "4"] + user, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, server, args.peer)
        print(f"generator check: rdmakv bench vs {'redis-benchmark' if args.peer == 'redis' else 'memaslap'} "
              f"against one {args.peer} (pid {server.pid}), {args.op.upper()}, {args.keys} keys of 16 B, values "
              f"{args.value_size} B, {args.threads} threads, {args.pairs} ABBA pairs of ~{args.trial:g} s; out {out}")
        run_bench(args, port, 50, 16, 1, 1, True, os.path.join(out, "load.json"))
        rows = {}
        for shape in args.shapes.split(","):
            conns, depth = (int(x) for x in shape.split("x"))
            rate = 50000.0
            pairs = []
            print(f"\n{shape}: pair  bench ops/s  tool ops/s  ratio  | server CPU us/op bench-driven tool-driven "
                  f"| generator CPU us/op bench tool | load")
            for i in range(1, args.pairs + 1):
                def bench():
                    return run_bench(args, port, conns, depth, args.trial, args.warmup, False,
                                     os.path.join(out, f"{shape}-pair{i}-bench.json"))

                def tool():
                    return run_peer_tool(args, port, server.pid, conns, depth, args.trial, rate)
                if i % 2 == 1:
                    a = bench()
                    rate = a["ops"]
                    b = tool()
                else:
                    b = tool()
                    a = bench()
                    rate = a["ops"]
                ratio = a["ops"] / b["ops"]
                pairs.append((ratio, a, b))
                print(f"{shape:>6} {i:>4} {a['ops']:>12,.0f} {b['ops']:>11,.0f} {ratio:>6.2f} | "
                      f"{a['server_cpu_us']:>12.2f} {b['server_cpu_us']:>12.2f} | "
                      f"{a['tool_cpu_us'] or float('nan'):>9.2f} {b['tool_cpu_us']:>6.2f} | "
                      f"{a['load']:.1f} {b['load']:.1f}", flush=True)
            rows[shape] = pairs
            with open(os.path.join(out, f"{shape}.json"), "w") as f:
                json.dump([{"ratio": r, "bench": a, "tool": b} for r, a, b in pairs], f, indent=1)
        print("\nsummary (ratio = rdmakv bench / the peer's own tool, same server; load = 1-min load average)")
        for shape, pairs in rows.items():
            loads = [x["load"] for _, a, b in pairs for x in (a, b)]
            print(f"{args.op.upper()} {shape:>6}: throughput {summary([r for r, _, _ in pairs])}; "
                  f"bench {statistics.median([a['ops'] for _, a, _ in pairs]):,.0f} ops/s, "
                  f"tool {statistics.median([b['ops'] for _, _, b in pairs]):,.0f} ops/s (medians); "
                  f"server CPU us/op bench-driven {statistics.median([a['server_cpu_us'] for _, a, _ in pairs]):.2f}, "
                  f"tool-driven {statistics.median([b['server_cpu_us'] for _, _, b in pairs]):.2f}; "
                  f"load {min(loads):.1f}-{max(loads):.1f}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
