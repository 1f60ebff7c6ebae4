package io.rdmakv.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bytes of the command-line arguments as the process was given them. Java decodes argv with the locale's
 * encoding ({@code sun.jnu.encoding}) before {@code main}: bytes that do not decode become U+FFFD (UTF-8) or '?'
 * (ASCII), so {@code $'\xff'} and {@code $'\xfe'} arrive as the same string. On Linux the kernel keeps the original
 * bytes in {@code /proc/self/cmdline}; its last entries are the arguments of {@code main}, which this class checks
 * (their ASCII characters must match) before trusting them. Without them, a string that lost bytes is refused.
 */
public final class ArgBytes
{
    private static final char REPLACEMENT = '\uFFFD';

    private final String[] args;
    private final byte[][] raw;

    private ArgBytes(final String[] args, final byte[][] raw)
    {
        this.args = args.clone();
        this.raw = raw;
    }

    /** The arguments of this process's {@code main}, with their bytes when {@code /proc/self/cmdline} has them. */
    public static ArgBytes ofProcess(final String[] args)
    {
        try
        {
            return of(args, split(Files.readAllBytes(Path.of("/proc/self/cmdline"))));
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return textOnly(args);
        }
    }

    /** Arguments given as strings only (tests, embedding): a string that lost bytes is refused. */
    public static ArgBytes textOnly(final String[] args)
    {
        return new ArgBytes(args, null);
    }

    /**
     * {@code args} with the raw command line {@code cmdline} (every argv entry, the JVM's first), used when its last
     * {@code args.length} entries are these arguments.
     */
    static ArgBytes of(final String[] args, final List<byte[]> cmdline)
    {
        if (cmdline.size() < args.length)
        {
            return textOnly(args);
        }
        final byte[][] raw = new byte[args.length][];
        for (int i = 0; i < args.length; i++)
        {
            raw[i] = cmdline.get(cmdline.size() - args.length + i);
            if (!asciiSkeleton(raw[i]).equals(asciiSkeleton(args[i])))
            {
                return textOnly(args); // not our arguments (an @argfile, or an in-process call)
            }
        }
        return new ArgBytes(args, raw);
    }

    /**
     * The bytes of the argument that reads as {@code value}.
     *
     * @param what what the argument is, for the message ("KEY", "VALUE").
     * @param hexOption the option that takes it unambiguously, for the message.
     * @throws IllegalArgumentException when its bytes were lost (or two arguments with different bytes read the
     *                                  same), pointing at the hex and base64 options.
     */
    public byte[] bytes(final String value, final String what, final String hexOption)
    {
        if (raw != null)
        {
            byte[] found = null;
            for (int i = 0; i < args.length; i++)
            {
                if (args[i].equals(value))
                {
                    if (found != null && !Arrays.equals(found, raw[i]))
                    {
                        throw new IllegalArgumentException(what + " cannot be told apart from another argument " +
                            "that reads the same in this locale (" + encoding() + ") but has other bytes; give it as " +
                            hexOption + " or " + hexOption.replace("-hex", "-base64"));
                    }
                    found = raw[i];
                }
            }
            if (found != null)
            {
                return found.clone();
            }
        }
        if (value.indexOf(REPLACEMENT) >= 0)
        {
            throw new IllegalArgumentException(what + " is not text in this locale's encoding (" + encoding() +
                "): its bytes were replaced by U+FFFD before rdmakv saw them, and two different keys would become " +
                "one; give it as " + hexOption + " HEX or " + hexOption.replace("-hex", "-base64") + " BASE64");
        }
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static String encoding()
    {
        return System.getProperty("sun.jnu.encoding", "unknown");
    }

    private static List<byte[]> split(final byte[] cmdline)
    {
        final List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++)
        {
            if (cmdline[i] == 0)
            {
                entries.add(Arrays.copyOfRange(cmdline, start, i));
                start = i + 1;
            }
        }
        if (start < cmdline.length)
        {
            entries.add(Arrays.copyOfRange(cmdline, start, cmdline.length));
        }
        return entries;
    }

    /** The printable ASCII characters other than '?', in order: what survives any decoding of the argument. */
    private static String asciiSkeleton(final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder();
        for (final byte b : bytes)
        {
            if (b > 0x20 && b < 0x7f && b != '?')
            {
                sb.append((char)b);
            }
        }
        return sb.toString();
    }

    private static String asciiSkeleton(final String text)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c > 0x20 && c < 0x7f && c != '?')
            {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
