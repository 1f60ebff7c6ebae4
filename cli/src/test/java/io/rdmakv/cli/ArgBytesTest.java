package io.rdmakv.cli;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bytes of arguments that Java's decoding of argv lost: taken from the raw command line, or refused. */
class ArgBytesTest
{
    private static final String LOST = "\uFFFD";

    @Test
    void shouldTakeTheRawBytesOfAnArgumentThatDidNotDecode()
    {
        final ArgBytes args = ArgBytes.of(new String[] {"put", LOST, "A"},
            List.of(b("java"), b("-jar"), b("rdmakv.jar"), b("put"), new byte[] {(byte)0xff}, b("A")));
        assertArrayEquals(new byte[] {(byte)0xff}, args.bytes(LOST, "KEY", "--key-hex"));
        assertArrayEquals(b("A"), args.bytes("A", "VALUE", "--value-hex"));
    }

    @Test
    void shouldTakeTheRawBytesWhenAnAsciiLocaleTurnedThemIntoQuestionMarks()
    {
        final byte[] cafe = "café".getBytes(StandardCharsets.UTF_8);
        final ArgBytes args = ArgBytes.of(new String[] {"get", "caf??"}, List.of(b("java"), b("get"), cafe));
        assertArrayEquals(cafe, args.bytes("caf??", "KEY", "--key-hex"));
    }

    @Test
    void shouldRefuseTwoArgumentsThatReadTheSameButDiffer()
    {
        final ArgBytes args = ArgBytes.of(new String[] {"put", LOST, LOST},
            List.of(b("java"), b("put"), new byte[] {(byte)0xff}, new byte[] {(byte)0xfe}));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> args.bytes(LOST, "KEY", "--key-hex"));
        assertTrue(ex.getMessage().contains("--key-hex") && ex.getMessage().contains("--key-base64"), ex.getMessage());
    }

    @Test
    void shouldRefuseALostArgumentWhenTheRawCommandLineIsNotOurs()
    {
        final ArgBytes args = ArgBytes.of(new String[] {"get", LOST},
            List.of(b("java"), b("-cp"), b("x"), b("org.example.Other"), b("--flag")));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> args.bytes(LOST, "KEY", "--key-hex"));
        assertTrue(ex.getMessage().contains("U+FFFD") && ex.getMessage().contains("--key-hex HEX"), ex.getMessage());
        assertArrayEquals(b("plain"), ArgBytes.textOnly(new String[] {"plain"}).bytes("plain", "KEY", "--key-hex"));
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
