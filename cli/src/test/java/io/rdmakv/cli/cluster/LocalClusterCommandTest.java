package io.rdmakv.cli.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The words of a node's {@code restart.sh}: each one reaches the node exactly as {@code cluster local} passed it. */
class LocalClusterCommandTest
{
    @Test
    void shouldQuoteEveryWordForTheShell()
    {
        assertEquals("'plain'", LocalClusterCommand.shellQuote("plain"));
        assertEquals("'a b'", LocalClusterCommand.shellQuote("a b"));
        assertEquals("'it'\\''s'", LocalClusterCommand.shellQuote("it's"));
        assertEquals("'$HOME;`x` \"q\"'", LocalClusterCommand.shellQuote("$HOME;`x` \"q\""));
    }
}
