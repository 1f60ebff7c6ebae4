package io.rdmakv.cli;

import picocli.CommandLine.Option;

import java.util.Base64;
import java.util.HexFormat;

/**
 * How a command takes its key: the KEY argument (its bytes as given, see {@link ArgBytes}), or {@code --key-hex} /
 * {@code --key-base64} for any bytes at all. Exactly one of them.
 */
public final class KeyOptions
{
    @Option(names = "--key-hex", paramLabel = "HEX", description = "The key as hexadecimal bytes, e.g. ff00.")
    String keyHex;

    @Option(names = "--key-base64", paramLabel = "B64", description = "The key as base64 (RFC 4648), any bytes.")
    String keyBase64;

    /**
     * The key's bytes.
     *
     * @param text the KEY argument, or null when absent.
     * @throws IllegalArgumentException when none or more than one form is given, or a form does not decode.
     */
    byte[] key(final String text, final ArgBytes args)
    {
        final int given = (text == null ? 0 : 1) + (keyHex == null ? 0 : 1) + (keyBase64 == null ? 0 : 1);
        if (given != 1)
        {
            throw new IllegalArgumentException(given == 0 ?
                "a key is required: KEY, --key-hex HEX or --key-base64 B64" :
                "give the key once: KEY, --key-hex or --key-base64, not several");
        }
        final byte[] key = keyHex != null ? hex(keyHex, "--key-hex") :
            keyBase64 != null ? base64(keyBase64, "--key-base64") : args.bytes(text, "KEY", "--key-hex");
        if (key.length == 0)
        {
            throw new IllegalArgumentException("the key is empty");
        }
        return key;
    }

    /** The key as text for messages: itself when printable ASCII, else its hex. */
    static String describe(final byte[] key)
    {
        for (final byte b : key)
        {
            if (b < 0x20 || b > 0x7e)
            {
                return "0x" + HexFormat.of().formatHex(key);
            }
        }
        return new String(key, java.nio.charset.StandardCharsets.US_ASCII);
    }

    static byte[] hex(final String value, final String option)
    {
        final String digits = value.startsWith("0x") || value.startsWith("0X") ? value.substring(2) : value;
        try
        {
            return HexFormat.of().parseHex(digits);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(option + " takes an even number of hexadecimal digits: '" + value + "'");
        }
    }

    static byte[] base64(final String value, final String option)
    {
        try
        {
            return Base64.getDecoder().decode(value.trim());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(option + " takes base64 (RFC 4648): '" + value + "' (" +
                ex.getMessage() + ")");
        }
    }
}
