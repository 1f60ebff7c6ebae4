package io.rdmakv.it.support;

/**
 * How big the end-to-end runs are: short by default (the whole module in well under two minutes on two cores),
 * long under the {@code soak} Maven profile ({@code -Psoak}, which sets {@code rdmakv.it.soak=true}).
 */
public final class TestScale
{
    private TestScale()
    {
    }

    public static boolean soak()
    {
        return Boolean.getBoolean("rdmakv.it.soak");
    }

    /** {@code normal} in the default run, {@code soak} under the soak profile. */
    public static int pick(final int normal, final int soak)
    {
        return soak() ? soak : normal;
    }

    public static long pick(final long normal, final long soak)
    {
        return soak() ? soak : normal;
    }
}
