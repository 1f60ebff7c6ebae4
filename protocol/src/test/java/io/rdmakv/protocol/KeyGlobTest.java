package io.rdmakv.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redis's glob dialect: each case as Redis's own {@code stringmatchlen} answers it (util.c, keyspace tests). */
class KeyGlobTest
{
    private static boolean m(final String pattern, final String key)
    {
        return KeyGlob.of(pattern.getBytes(StandardCharsets.UTF_8)).matches(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void literalsAndStars()
    {
        assertTrue(m("hello", "hello"));
        assertFalse(m("hello", "hell"));
        assertFalse(m("hello", "helloo"));
        assertTrue(m("h*o", "hello"));
        assertTrue(m("h*o", "ho"));
        assertTrue(m("*", "anything"));
        assertTrue(m("**", "x"));
        assertTrue(m("user:*", "user:1"));
        assertFalse(m("user:*", "users:1"));
        assertTrue(m("*:1", "user:1"));
        assertTrue(m("a*b*c", "aXXbYYc"));
        assertFalse(m("a*b*c", "aXXbYY"));
        assertTrue(m("a*", "a/b/c")); // unlike a path glob, a star crosses '/'
    }

    @Test
    void questionMark()
    {
        assertTrue(m("h?llo", "hallo"));
        assertFalse(m("h?llo", "hllo"));
        assertTrue(m("???", "abc"));
        assertFalse(m("???", "ab"));
    }

    @Test
    void sets()
    {
        assertTrue(m("h[ae]llo", "hello"));
        assertTrue(m("h[ae]llo", "hallo"));
        assertFalse(m("h[ae]llo", "hillo"));
        assertTrue(m("h[^e]llo", "hallo"));
        assertFalse(m("h[^e]llo", "hello"));
        assertTrue(m("h[a-b]llo", "hbllo"));
        assertTrue(m("h[b-a]llo", "hallo")); // a range in either order
        assertFalse(m("h[a-b]llo", "hcllo"));
        assertTrue(m("[\\]]", "]"));
        assertTrue(m("[a\\-z]", "-"));
        assertFalse(m("[a\\-z]", "b"));
    }

    @Test
    void escapes()
    {
        assertTrue(m("h\\*llo", "h*llo"));
        assertFalse(m("h\\*llo", "hello"));
        assertTrue(m("\\?", "?"));
        assertFalse(m("\\?", "a"));
        assertTrue(m("a\\", "a\\")); // a trailing backslash is itself
    }

    @Test
    void unclosedSetTakesTheRestAsItsSet()
    {
        assertTrue(m("[abc", "a"));
        assertTrue(m("[abc", "c"));
        assertFalse(m("[abc", "d"));
    }

    @Test
    void emptyPatternAndStarsMatchAll()
    {
        assertTrue(KeyGlob.of(new byte[0]).matchesAll());
        assertTrue(KeyGlob.of("**".getBytes()).matchesAll());
        assertFalse(KeyGlob.of("a*".getBytes()).matchesAll());
    }

    @Test
    void binaryKeys()
    {
        final KeyGlob glob = KeyGlob.of(new byte[] {'k', '*', (byte)0xFF});
        assertTrue(glob.matches(new byte[] {'k', 0, 1, (byte)0xFF}));
        assertFalse(glob.matches(new byte[] {'k', 0, 1, (byte)0xFE}));
    }

    @Test
    void abusivePatternEndsQuickly()
    {
        // Redis's own regression case: without the skip of longer matches this takes exponential time.
        final String key = "a".repeat(50) + "b";
        assertFalse(m("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c", key));
        final StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 5000; i++)
        {
            deep.append("*a");
        }
        assertFalse(m(deep.toString(), "a".repeat(100))); // no stack overflow: nesting bounded
    }
}
