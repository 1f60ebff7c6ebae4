package io.rdmakv.server.cli;

import java.util.Arrays;

/**
 * Process entry point: {@code java -cp ... io.rdmakv.server.cli.ServerMain [server] [options]}. The leading word
 * {@code server} is optional, so the same arguments work as {@code rdmakv server ...}.
 */
public final class ServerMain
{
    private ServerMain()
    {
    }

    public static void main(final String[] args)
    {
        final String[] rest = args.length > 0 && "server".equals(args[0]) ? Arrays.copyOfRange(args, 1, args.length) : args;
        final int code = ServerCommand.run(rest);
        // Exit explicitly: RocksDB and Netty keep non-daemon threads only while open, but be certain.
        System.exit(code);
    }
}
