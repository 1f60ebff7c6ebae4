package io.rdmakv.it.layering;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One word, one meaning ({@code docs/glossary.md}): "slot" names four things in rdmakv (a hash slot, an index entry, a
 * request slot, an endpoint slot), so no Java identifier of any module, main or test, is the bare word: not
 * {@code slot}, {@code slots}, {@code SLOT}, {@code SLOTS} nor {@code SLOT_COUNT}; a name says which slot
 * ({@code hashSlot}, {@code requestSlot}, {@code sendSlot}, {@code IndexBucketFlyweight.ENTRY_COUNT}). The names
 * retired when the meanings were untangled do not come back. Comments and string literals are prose and keep their
 * words (a message a user reads, a RESP reply, a setting's name).
 */
class NamingTest
{
    /** Identifiers that say no meaning, compared ignoring case. */
    private static final Set<String> BARE = Set.of("slot", "slots", "slot_count");

    /** Retired names and what replaced them. */
    private static final Map<String, String> RETIRED = Map.of(
        "IndexSlot", "IndexEntry",
        "clusterSlot", "hashSlot (KeyHash.hashSlot, HashedKey.hashSlot)",
        "CLUSTER_SLOT_COUNT", "ProtocolLimits.HASH_SLOT_COUNT",
        "slotOf", "hashSlot (HashedKey, KeyHash)",
        "indexSlot", "indexEntry",
        "followedSlot", "followedEntry");

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    @Test
    void shouldNameNoIdentifierByTheBareWordSlotNorByARetiredName() throws IOException
    {
        final Path root = SourceReferences.repositoryRoot();
        final List<String> found = new ArrayList<>();
        int files = 0;
        try (Stream<Path> walk = Files.walk(root))
        {
            final List<Path> sources = walk
                .filter(p -> p.toString().endsWith(".java"))
                .filter(p -> !root.relativize(p).toString().matches("(.*/)?(target|\\.git|node_modules)/.*"))
                .sorted()
                .toList();
            for (final Path file : sources)
            {
                files++;
                found.addAll(offences(root.relativize(file).toString(), Files.readString(file)));
            }
        }
        assertTrue(files > 300, "the source walk found only " + files + " Java files under " + root);
        assertEquals(List.of(), found, "an identifier must say which slot it means (docs/glossary.md, 'Names in " +
            "code'): hashSlot, requestSlot, sendSlot, endpointSlots, or an index entry's entry words");
    }

    @Test
    void shouldFindTheBareWordInCodeAndNotInCommentsOrStrings()
    {
        final String source = String.join("\n",
            "/** The slot of {@code slot}. */",
            "class A",
            "{",
            "    // slot: a comment",
            "    private final int hashSlot = 1; /* slots */",
            "    String s = \"slot \\\" slot\";",
            "    char c = 's';",
            "    String t = \"\"\"",
            "        slot in a text block \"\"\";",
            "    long slot(final int SLOTS) { return IndexSlot.EMPTY + requestSlot; }",
            "}");
        assertEquals(List.of("A.java:10: slot", "A.java:10: SLOTS",
                "A.java:10: IndexSlot (retired: IndexEntry)"), offences("A.java", source));
    }

    /** {@code file:line: identifier} of each identifier that is a bare slot word or a retired name. */
    static List<String> offences(final String file, final String source)
    {
        final List<String> found = new ArrayList<>();
        final String code = codeOnly(source);
        final Matcher m = IDENTIFIER.matcher(code);
        while (m.find())
        {
            final String name = m.group();
            final String retired = RETIRED.get(name);
            if (BARE.contains(name.toLowerCase()) || retired != null)
            {
                final int line = 1 + (int)code.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                found.add(file + ":" + line + ": " + name + (retired != null ? " (retired: " + retired + ")" : ""));
            }
        }
        return found;
    }

    /**
     * {@code source} with its comments, string literals, text blocks and character literals blanked out (line breaks
     * kept, so line numbers hold); a number's digits are left, an identifier never starts with one.
     */
    static String codeOnly(final String source)
    {
        final StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        final int n = source.length();
        while (i < n)
        {
            final char c = source.charAt(i);
            final int end;
            if (source.startsWith("//", i))
            {
                end = indexOrEnd(source, "\n", i);
            }
            else if (source.startsWith("/*", i))
            {
                end = Math.min(n, indexOrEnd(source, "*/", i + 2) + 2);
            }
            else if (source.startsWith("\"\"\"", i))
            {
                end = closing(source, i + 3, "\"\"\"");
            }
            else if (c == '"' || c == '\'')
            {
                end = closing(source, i + 1, String.valueOf(c));
            }
            else
            {
                out.append(c);
                i++;
                continue;
            }
            for (int k = i; k < end; k++)
            {
                out.append(source.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }

    /** The index after the unescaped {@code quote} that closes a literal whose body starts at {@code from}. */
    private static int closing(final String source, final int from, final String quote)
    {
        int i = from;
        while (i < source.length())
        {
            if (source.charAt(i) == '\\')
            {
                i += 2;
            }
            else if (source.startsWith(quote, i))
            {
                return i + quote.length();
            }
            else
            {
                i++;
            }
        }
        return source.length();
    }

    private static int indexOrEnd(final String source, final String what, final int from)
    {
        final int at = source.indexOf(what, from);
        return at < 0 ? source.length() : at;
    }
}
