package io.rdmakv.server.resp;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@link CommandTable#find(byte[])}, the lookup of a request's command name without a String: it finds exactly what
 * the lookup of the lower-cased String found (every command, in any case), and nothing for any other name.
 */
class CommandTableTest
{
    @Test
    void findsEveryCommandInAnyCaseAsTheStringLookupDoes()
    {
        for (final String name : CommandTable.COMMANDS.keySet())
        {
            final CommandTable.Spec spec = CommandTable.find(name);
            assertSame(spec, CommandTable.find(bytes(name)), name);
            assertSame(spec, CommandTable.find(bytes(name.toUpperCase(Locale.ROOT))), name);
            assertSame(spec, CommandTable.find(bytes(mixedCase(name))), name);
            assertSame(name, CommandTable.find(bytes(name)).name(), "the table's own String: " + name);
        }
    }

    @Test
    void findsNothingForOtherNames()
    {
        for (final String other : new String[] {"", "g", "ge", "gett", "xget", "sets", "flushall", "getdel ", "@et",
            "[et", "{et", "`et", "1get", "g\u00e9t"})
        {
            assertNull(CommandTable.find(bytes(other)), other);
            assertNull(CommandTable.find(other.toLowerCase(Locale.ROOT)), other);
        }
        // Only ASCII letters fold: a byte one case bit away from a letter is not that letter ('G' ^ 0x20 = 'g', but
        // 'E' - 0x20 = '%' and 0xC5 are not 'e').
        assertNull(CommandTable.find(new byte[] {'g', '%', 't'}));
        assertNull(CommandTable.find(new byte[] {'g', (byte)0xC5, 't'}));
        assertNull(CommandTable.find(new byte[] {'g', 'e', (byte)('T' ^ 0x80)}));
    }

    private static String mixedCase(final String name)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            sb.append(i % 2 == 0 ? Character.toUpperCase(c) : c);
        }
        return sb.toString();
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
