package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.WriteResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv put KEY VALUE}: the key and the value are the bytes given on the command line ({@link ArgBytes}), or
 * any bytes through {@code --key-hex}/{@code --key-base64} and {@code --value-hex}/{@code --value-base64}/
 * {@code --value-file}/{@code -} (standard input).
 */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = {"Store VALUE under KEY. KEY and VALUE are the bytes given; VALUE '-' reads standard input (raw " +
        "bytes, to EOF).", "Binary keys and values: --key-hex/--key-base64, --value-hex/--value-base64/--value-file."})
public final class PutCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Mixin
    KeyOptions keyOptions;

    @Option(names = "--value-hex", paramLabel = "HEX", description = "The value as hexadecimal bytes.")
    String valueHex;

    @Option(names = "--value-base64", paramLabel = "B64", description = "The value as base64 (RFC 4648).")
    String valueBase64;

    @Option(names = "--value-file", paramLabel = "FILE", description = "The value is the content of FILE (raw bytes).")
    Path valueFile;

    @Option(names = "--ttl", paramLabel = "DURATION",
        description = "The key expires after DURATION (10s, 500ms, 2m, 1h, 1d, or seconds).")
    String ttl;

    @Option(names = "--if-absent", description = "Store only if KEY is absent (else exit 3, nothing written).")
    boolean ifAbsent;

    @Option(names = "--if-version", paramLabel = "V",
        description = "Store only if KEY's version is V (get --with-version prints it; else exit 3).")
    Long ifVersion;

    @Parameters(paramLabel = "KEY VALUE", arity = "0..2",
        description = "The key, then the value (or - for standard input); leave out what an option gives.")
    List<String> positionals = new ArrayList<>();

    @Override
    public Integer call()
    {
        final List<String> rest = new ArrayList<>(positionals);
        final boolean keyByOption = keyOptions.keyHex != null || keyOptions.keyBase64 != null;
        final byte[] key = keyOptions.key(keyByOption || rest.isEmpty() ? null : rest.remove(0), parent.args());
        final byte[] value = value(rest);
        if ((ttl != null ? 1 : 0) + (ifAbsent ? 1 : 0) + (ifVersion != null ? 1 : 0) > 1)
        {
            throw new IllegalArgumentException("--ttl, --if-absent and --if-version go one at a time");
        }
        final Duration expiresAfter = ttl == null ? null : Durations.parse(ttl, "--ttl");
        try (KvClient kv = client.connect())
        {
            if (expiresAfter != null)
            {
                kv.put(key, value, expiresAfter);
            }
            else if (ifAbsent || ifVersion != null)
            {
                final WriteResult result = ifAbsent ? kv.putIfAbsent(key, value) : kv.replace(key, ifVersion, value);
                if (!result.applied())
                {
                    parent.io().err().println("rdmakv: condition failed: " + KeyOptions.describe(key) +
                        (result.version() == 0 ? " is absent" : " is at version " + result.version()) +
                        ", nothing written");
                    return ExitCodes.CONDITION_FAILED;
                }
            }
            else
            {
                kv.put(key, value);
            }
        }
        return ExitCodes.OK;
    }

    private byte[] value(final List<String> rest)
    {
        final int given = rest.size() + (valueHex == null ? 0 : 1) + (valueBase64 == null ? 0 : 1) +
            (valueFile == null ? 0 : 1);
        if (given != 1)
        {
            throw new IllegalArgumentException(given == 0 ?
                "a value is required: VALUE, -, --value-hex, --value-base64 or --value-file" :
                "give the key and the value once each: " + given + " values given");
        }
        if (valueHex != null)
        {
            return KeyOptions.hex(valueHex, "--value-hex");
        }
        if (valueBase64 != null)
        {
            return KeyOptions.base64(valueBase64, "--value-base64");
        }
        try
        {
            if (valueFile != null)
            {
                return Files.readAllBytes(valueFile);
            }
            if ("-".equals(rest.get(0)))
            {
                return parent.io().in().readAllBytes();
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the value from " + (valueFile != null ? valueFile :
                "standard input") + ": " + ex, ex);
        }
        return parent.args().bytes(rest.get(0), "VALUE", "--value-hex");
    }
}
