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
    public BenchSettings
    {
        if (keys < 1 || connections < 1 || threads < 1 || inFlight < 1)
        {
            throw new BenchException("--keys, --connections, --threads and --inflight must be positive");
        }
        if (threads > connections)
        {
            throw new BenchException("--threads " + threads + " is more than --connections " + connections +
                ": every thread drives at least one connection");
        }
        if (operations < 0 || duration.isNegative() || warmup.isNegative() || (operations == 0 && duration.isZero()))
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
