package io.rdmakv.cli.bench;

import java.util.Locale;

/**
 * An operation mix in percent, YCSB style: A = 50/50 read/update, B = 95/5, C = read only, D = 95% read of the
 * latest keys + 5% insert; or a custom {@code get=G,put=P[,insert=I]} summing to 100.
 *
 * @param name          "A".."D" or "custom".
 * @param getPercent    share of GETs.
 * @param putPercent    share of updates of existing keys.
 * @param insertPercent share of inserts of new keys.
 * @param readLatest    GETs favour the newest keys (workload D) instead of the configured distribution.
 */
public record Workload(String name, int getPercent, int putPercent, int insertPercent, boolean readLatest)
{
    public Workload
    {
        if (getPercent < 0 || putPercent < 0 || insertPercent < 0 || getPercent + putPercent + insertPercent != 100)
        {
            throw new BenchException("a mix must be percentages summing to 100: get=" + getPercent + ",put=" +
                putPercent + ",insert=" + insertPercent);
        }
    }

    /**
     * Parse "A", "B", "C", "D" (any case) or "get=90,put=10" (insert optional).
     *
     * @throws BenchException naming what is wrong.
     */
    public static Workload parse(final String text)
    {
        final String t = text == null ? "" : text.trim();
        switch (t.toUpperCase(Locale.ROOT))
        {
            case "A":
                return new Workload("A", 50, 50, 0, false);
            case "B":
                return new Workload("B", 95, 5, 0, false);
            case "C":
                return new Workload("C", 100, 0, 0, false);
            case "D":
                return new Workload("D", 95, 0, 5, true);
            default:
                break;
        }
        int get = 0;
        int put = 0;
        int insert = 0;
        if (!t.contains("="))
        {
            throw new BenchException("unknown workload '" + t + "': A, B, C, D or a mix like get=90,put=10");
        }
        for (final String part : t.split(","))
        {
            final String[] kv = part.split("=", 2);
            final int value;
            try
            {
                value = Integer.parseInt(kv[1].trim());
            }
            catch (final RuntimeException ex)
            {
                throw new BenchException("bad mix entry '" + part + "' in '" + t + "': want name=percent");
            }
            switch (kv[0].trim().toLowerCase(Locale.ROOT))
            {
                case "get", "read" -> get = value;
                case "put", "update", "set" -> put = value;
                case "insert" -> insert = value;
                default -> throw new BenchException("unknown operation '" + kv[0].trim() + "' in mix '" + t +
                    "' (get, put, insert)");
            }
        }
        return new Workload("custom", get, put, insert, false);
    }

    /** The operation for a uniform draw {@code percentile} in [0, 100). */
    public OpType pick(final int percentile)
    {
        if (percentile < getPercent)
        {
            return OpType.GET;
        }
        return percentile < getPercent + putPercent ? OpType.PUT : OpType.INSERT;
    }

    public String describe()
    {
        return name + " (" + getPercent + "% get, " + putPercent + "% put" +
            (insertPercent > 0 ? ", " + insertPercent + "% insert" : "") + (readLatest ? ", reads of the latest" : "") +
            ")";
    }
}
