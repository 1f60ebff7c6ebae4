package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv get KEY}: prints the value alone on stdout (raw bytes and a newline, or {@code --hex}/{@code --base64}
 * text, or {@code --raw} bytes alone); a missing key exits 1 with a message on stderr.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = {"Print the value of KEY on standard output (raw bytes and a newline). Exit 1 when the key does " +
        "not exist.", "Binary keys: --key-hex/--key-base64; binary values: --hex, --base64 or --raw."})
public final class GetCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Mixin
    KeyOptions keyOptions;

    @ArgGroup(exclusive = true)
    Format format = new Format();

    @Parameters(index = "0", arity = "0..1", paramLabel = "KEY", description = "The key (its bytes as given).")
    String key;

    @Option(names = "--with-version",
        description = "Print the value's version on its own line after the value (for put/del --if-version).")
    boolean withVersion;

    @Override
    public Integer call()
    {
        final Io io = parent.io();
        final byte[] k = keyOptions.key(key, parent.args());
        try (KvClient kv = client.connect())
        {
            final Versioned versioned = withVersion ? kv.getWithVersion(k) : null;
            final byte[] value = withVersion ? (versioned == null ? null : versioned.value()) : kv.get(k);
            if (value == null)
            {
                io.err().println("rdmakv: key not found: " + KeyOptions.describe(k));
                return ExitCodes.NOT_FOUND;
            }
            if (format.hex)
            {
                final byte[] text = HexFormat.of().formatHex(value).getBytes(StandardCharsets.US_ASCII);
                io.out().write(text, 0, text.length);
            }
            else if (format.base64)
            {
                final byte[] text = Base64.getEncoder().encode(value);
                io.out().write(text, 0, text.length);
            }
            else
            {
                io.out().write(value, 0, value.length);
            }
            if (!format.raw || withVersion)
            {
                io.out().println();
            }
            if (withVersion)
            {
                io.out().println(Long.toString(versioned.version()));
            }
            io.out().flush();
            return ExitCodes.OK;
        }
    }

    /** How the value is printed. */
    static final class Format
    {
        @Option(names = {"-n", "--no-newline", "--raw"}, description = "Print the value's bytes alone, no newline.")
        boolean raw;

        @Option(names = "--hex", description = "Print the value as hexadecimal, then a newline.")
        boolean hex;

        @Option(names = "--base64", description = "Print the value as base64 (RFC 4648), then a newline.")
        boolean base64;
    }
}
