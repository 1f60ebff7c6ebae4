#!/usr/bin/env python3
"""Where a cached GET's time goes, per step, from an async-profiler profile of the bench JVM in collapsed form.

    get-steps.py PROFILE.collapsed [--thread NAME]

Takes the samples whose stack holds the client's GET (KvClient.getAsync, or KvClient.get) and, on verbs, the
caller's wait on the future (DrivenFuture: a caller-driven wait polls the completion queue on the caller's thread);
gives each sample to the step of the leaf-most frame that names one (the table below, first match from the leaf
up), and prints each step's share of those samples. Frames inlined by the JIT are frames here too
(async-profiler resolves them), so a step is the code, not the compiled unit. With --thread, only stacks whose
first frame (async-profiler's `threads` option) contains NAME.
"""
import sys
from collections import Counter

# step, substrings of a frame that name it; the first step whose substring a frame holds wins for that frame
STEPS = [
    ("post: the verbs post (ibv_post_send; on rxe the kernel's requester runs in its system call)",
     ["post_send", "VerbsOps.postSend", "ibv_post", "rxe_post", "libc_write", "__write", "write_nocancel"]),
    ("poll: the completion queue polled while waiting (ibv_poll_cq)", ["poll_cq", "VerbsOps.pollCq", "rxe_poll"]),
    ("the read itself: a copy out of the node's pool (shm)", ["ShmPeerRegions.copy", "ShmEndpoint.copy"]),
    ("the location cache's lookup", ["LocationCache.lookup"]),
    ("the extent's check (CRC32C, key, version, state)", ["ValueExtentFlyweight", "CRC32C", "Crc32c", "updateBytes"]),
    ("the ownership word and the read lease", ["ownershipServes", "ReadLease", "SlotOwnershipTable"]),
    ("routing: map route, session", ["ClusterMap", "dispatchIfConnected", "NodeSession", "ClusterRouter"]),
    ("key hashes (64-bit hash, cluster slot)", ["KeyHash"]),
    ("the transport's read/post bookkeeping", ["io.rdmakv.transport", "io/rdmakv/transport"]),
    ("completion: the value's copy, the request slot, the future",
     ["succeedWithValue", "RequestSlots.complete", "AsyncCall", "CompletableFuture", "DrivenFuture.complete",
      "RequestSlots.release", "FreeSlotStack"]),
    ("the request slot and the call", ["RequestSlots", "RequestSlot.", "Requests.", "checkLimits", "RequestQueue",
                                       "ClientRuntime", "KvClient."]),
    ("the protocol's own steps (OneSidedGetProtocol, StepReads)", ["OneSidedGetProtocol", "StepReads"]),
    ("the wait loop itself (DrivenFuture: spin, yield)", ["DrivenFuture", "onSpinWait", "Thread.yield", "sched_yield"]),
]
ROOTS = ["KvClient.getAsync", "KvClient.get", "DrivenFuture.get", "DrivenFuture.drive"]


def step_of(frames):
    for frame in reversed(frames):
        for name, needles in STEPS:
            if any(n in frame for n in needles):
                return name
    return "other (JVM, interpreter, unnamed frames)"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    thread = argv[argv.index("--thread") + 1] if "--thread" in argv else None
    shares = Counter()
    total = 0
    allsamples = 0
    with open(argv[1]) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not count.isdigit():
                continue
            n = int(count)
            allsamples += n
            frames = stack.split(";")
            if thread and thread not in frames[0]:
                continue
            if not any(r in frame for frame in frames for r in ROOTS):
                continue
            total += n
            shares[step_of(frames)] += n
    print(f"{total} samples under the GET (of {allsamples} in the profile)")
    for name, n in shares.most_common():
        print(f"{100.0 * n / max(total, 1):5.1f}%  {name}")


if __name__ == "__main__":
    main(sys.argv)
