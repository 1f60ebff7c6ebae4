package io.rdmakv.cli.bench;

import java.time.Duration;

/**
 * Everything a run needs besides the driver.
 *
 * @param workload     the operation mix.
 * @param zipfian      Zipfian key choice (else uniform).
 * @param theta        Zipf skew.
 * @param keys         keys loaded and chosen from.
 * @param keySize      bytes per key.
 * @param valueSize    bytes per value.
 * @param connections  driver connections in total.
 * @param threads      generator threads (connections are dealt out round-robin).
 * @param inFlight     operations in flight per connection (1 = no pipelining).
 * @param duration     measured time, unless {@code operations} is positive.
 * @param operations   measured operations (0 = run for {@code duration}).
 * @param warmup       time run before measuring, not recorded.
 * @param load         write every key once before the run.
 * @param progress     print a live progress line.
 */
public record BenchSettings(
    Workload workload,
    boolean zipfian,
    double theta,
    long keys,
    int keySize,
    int valueSize,
    int connections,
    int threads,
    int inFlight,
    Duration duration,
    long operations,
    Duration warmup,
    boolean load,
    boolean progress)
{
    /** Every option within its bounds ({@link BenchLimits}), each named in the error. */
    public BenchSettings
    {
        BenchLimits.check("--keys", keys, 1, zipfian || workload.readLatest() ? BenchLimits.MAX_ZIPFIAN_KEYS :
            BenchLimits.MAX_KEYS);
        BenchLimits.check("--key-size", keySize, 1, Integer.MAX_VALUE);
        BenchLimits.check("--value-size", valueSize, 0, Integer.MAX_VALUE);
        BenchLimits.check("--connections", connections, 1, BenchLimits.MAX_CONNECTIONS);
        BenchLimits.check("--threads", threads, 1, BenchLimits.MAX_THREADS);
        BenchLimits.check("--inflight", inFlight, 1, BenchLimits.MAX_IN_FLIGHT);
        BenchLimits.check("--connections x --inflight", (long)connections * inFlight, 1,
            BenchLimits.MAX_TOTAL_IN_FLIGHT);
        if (threads > connections)
        {
            throw new BenchException("--threads " + threads + " is more than --connections " + connections +
                ": every thread drives at least one connection");
        }
        BenchLimits.check("--ops", operations, 0, BenchLimits.MAX_OPERATIONS);
        BenchLimits.check("--duration (seconds)", duration.getSeconds(), 0, BenchLimits.MAX_DURATION_SECONDS);
        BenchLimits.check("--warmup (seconds)", warmup.getSeconds(), 0, BenchLimits.MAX_WARMUP_SECONDS);
        if (duration.isNegative() || warmup.isNegative() || (operations == 0 && duration.isZero()))
        {
            throw new BenchException("give a positive --duration or --ops, and a warm-up that is not negative");
        }
        if (!(theta > 0 && theta < 1))
        {
            throw new BenchException("--theta must be in (0, 1): " + theta);
        }
    }

    public String distribution()
    {
        return zipfian ? "zipfian(" + theta + ")" : "uniform";
    }
}
