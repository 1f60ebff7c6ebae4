package io.rdmakv.cli.bench;

/**
 * Zipf-distributed ranks in {@code [0, items)}, rank 0 the most popular, by the method of Gray et al. ("Quickly
 * generating billion-record synthetic databases", SIGMOD 1994) as YCSB's {@code ZipfianGenerator} uses it. The
 * constants (including zeta(n), an O(n) sum) are computed once; {@link #next(double)} is O(1), allocation-free and
 * thread-safe (the caller supplies the uniform variate from its own random source).
 */
public final class ZipfianGenerator
{
    /** YCSB's default skew. */
    public static final double DEFAULT_THETA = 0.99;

    private final long items;
    private final double theta;
    private final double zetaN;
    private final double alpha;
    private final double eta;
    private final double halfPowTheta;

    /**
     * @param items number of ranks, at least 1.
     * @param theta skew in (0, 1); 0.99 is YCSB's.
     */
    public ZipfianGenerator(final long items, final double theta)
    {
        if (items < 1)
        {
            throw new IllegalArgumentException("items must be positive: " + items);
        }
        if (!(theta > 0 && theta < 1))
        {
            throw new IllegalArgumentException("theta must be in (0, 1): " + theta);
        }
        this.items = items;
        this.theta = theta;
        this.zetaN = zeta(items, theta);
        final double zeta2 = zeta(2, theta);
        this.alpha = 1.0 / (1.0 - theta);
        this.eta = (1 - Math.pow(2.0 / items, 1 - theta)) / (1 - zeta2 / zetaN);
        this.halfPowTheta = 1 + Math.pow(0.5, theta);
    }

    /** The rank for a uniform variate {@code u} in [0, 1). */
    public long next(final double u)
    {
        final double uz = u * zetaN;
        if (uz < 1.0)
        {
            return 0;
        }
        if (uz < halfPowTheta)
        {
            return Math.min(1, items - 1);
        }
        final long rank = (long)(items * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(rank, items - 1);
    }

    /** Probability of rank {@code r} (0-based) under this distribution: (1/(r+1)^theta) / zeta(n). */
    public double probability(final long rank)
    {
        return 1.0 / Math.pow(rank + 1, theta) / zetaN;
    }

    public long items()
    {
        return items;
    }

    public double theta()
    {
        return theta;
    }

    static double zeta(final long n, final double theta)
    {
        double sum = 0;
        for (long i = 1; i <= n; i++)
        {
            sum += 1.0 / Math.pow(i, theta);
        }
        return sum;
    }
}
