package io.rdmakv.protocol;

import org.agrona.DirectBuffer;

/**
 * Redis's glob, as {@code SCAN MATCH} and {@code KEYS} use it, over key bytes: {@code *} any run of bytes (none
 * too), {@code ?} any one byte, {@code [abc]} one of a set, {@code [^abc]} one not in it, {@code [a-z]} a range (either order), {@code \x} the byte {@code x} itself, also inside a
 * set. An unclosed {@code [} takes the rest of the pattern as its set, as Redis does. A port of Redis's
 * {@code stringmatchlen} (util.c), without its case-folding option; written here because no maintained Java library
 * implements this dialect ({@link java.nio.file.PathMatcher}'s glob stops {@code *} at {@code /}, has {@code {a,b}}
 * alternation and other escapes). Backtracking is bounded as in Redis: once the rest after a {@code *} matched
 * nowhere in the key, no earlier {@code *} tries a longer run, and stars nested deeper than 1,000 never match. Range
 * bounds compare as unsigned bytes (Redis compares C {@code char}s, signed on x86: ranges over bytes 0x80-0xFF differ).
 */
public final class KeyGlob
{
    /** Stars nested deeper than this do not match (Redis's guard against abusive patterns). */
    private static final int MAX_NESTING = 1000;
    private final byte[] pattern;
    private final boolean matchesAll;

    private KeyGlob(final byte[] pattern)
    {
        this.pattern = pattern.clone();
        boolean all = true;
        for (final byte b : pattern)
        {
            all &= b == '*';
        }
        this.matchesAll = all;
    }

    /** The glob of {@code pattern}; an empty pattern matches every key (no MATCH given). */
    public static KeyGlob of(final byte[] pattern)
    {
        return new KeyGlob(pattern);
    }

    /** Whether every key matches (no pattern, or only stars): a scan then need not look at keys. */
    public boolean matchesAll()
    {
        return matchesAll;
    }

    public boolean matches(final byte[] key)
    {
        return matches(key, 0, key.length);
    }

    public boolean matches(final byte[] key, final int offset, final int length)
    {
        return matchesAll || match(pattern, 0, key, offset, offset + length, new boolean[1], 0) == 1;
    }

    public boolean matches(final DirectBuffer key, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        key.getBytes(offset, copy);
        return matches(copy);
    }

    /**
     * @return 1 matched, 0 not; {@code skipLonger[0]} set when the rest could not match however long the star's run
     *         (Redis's {@code skipLongerMatches}).
     */
    private static int match(final byte[] p, final int pStart, final byte[] s, final int sStart, final int sEnd,
        final boolean[] skipLonger, final int nesting)
    {
        if (nesting > MAX_NESTING)
        {
            return 0;
        }
        int pi = pStart;
        int si = sStart;
        final int pEnd = p.length;
        while (pi < pEnd && si < sEnd)
        {
            switch (p[pi])
            {
                case '*' ->
                {
                    while (pi + 1 < pEnd && p[pi + 1] == '*')
                    {
                        pi++;
                    }
                    if (pi + 1 == pEnd)
                    {
                        return 1;
                    }
                    while (si < sEnd)
                    {
                        if (match(p, pi + 1, s, si, sEnd, skipLonger, nesting + 1) == 1)
                        {
                            return 1;
                        }
                        if (skipLonger[0])
                        {
                            return 0;
                        }
                        si++;
                    }
                    skipLonger[0] = true;
                    return 0;
                }
                case '?' -> si++;
                case '[' ->
                {
                    pi++;
                    final boolean not = pi < pEnd && p[pi] == '^';
                    if (not)
                    {
                        pi++;
                    }
                    boolean hit = false;
                    while (true)
                    {
                        if (pi < pEnd && p[pi] == '\\' && pi + 1 < pEnd)
                        {
                            pi++;
                            if (p[pi] == s[si])
                            {
                                hit = true;
                            }
                        }
                        else if (pi >= pEnd || p[pi] == ']')
                        {
                            break;
                        }
                        else if (pi + 2 < pEnd && p[pi + 1] == '-')
                        {
                            int start = p[pi] & 0xFF;
                            int end = p[pi + 2] & 0xFF;
                            if (start > end)
                            {
                                final int t = start;
                                start = end;
                                end = t;
                            }
                            final int c = s[si] & 0xFF;
                            pi += 2;
                            if (c >= start && c <= end)
                            {
                                hit = true;
                            }
                        }
                        else if (p[pi] == s[si])
                        {
                            hit = true;
                        }
                        pi++;
                    }
                    if (pi >= pEnd)
                    {
                        pi--; // an unclosed set: Redis steps back onto its last byte
                    }
                    if (not == hit)
                    {
                        return 0;
                    }
                    si++;
                }
                case '\\' ->
                {
                    if (pi + 1 < pEnd)
                    {
                        pi++;
                    }
                    if (p[pi] != s[si])
                    {
                        return 0;
                    }
                    si++;
                }
                default ->
                {
                    if (p[pi] != s[si])
                    {
                        return 0;
                    }
                    si++;
                }
            }
            pi++;
            if (si == sEnd)
            {
                while (pi < pEnd && p[pi] == '*')
                {
                    pi++;
                }
                break;
            }
        }
        return pi == pEnd && si == sEnd ? 1 : 0;
    }
}
