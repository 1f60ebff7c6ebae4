package io.rdmakv.it.embed;

import io.rdmakv.client.KvClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * A TCP-only embedder, run by {@link TcpEmbedderWithoutJnaTest} in a JVM whose class path has no JNA: it first shows
 * that JNA is really absent, then connects a {@link KvClient} over tcp to the node given as {@code host:port}, puts a
 * value and reads it back. Prints {@code OK} and exits 0 on success; any class that needs JNA ends it with a
 * {@link NoClassDefFoundError} instead.
 */
public final class TcpOnlyClientMain
{
    private TcpOnlyClientMain()
    {
    }

    /**
     * Run the embedder.
     *
     * @param args the node's control address, {@code host:port}.
     */
    public static void main(final String[] args)
    {
        try
        {
            Class.forName("com.sun.jna.Native");
            System.out.println("JNA_ON_CLASS_PATH");
            System.exit(4);
        }
        catch (final ClassNotFoundException expected)
        {
            System.out.println("no JNA on the class path");
        }
        final byte[] value = "served without JNA".getBytes(StandardCharsets.UTF_8);
        final Duration patient = Duration.ofSeconds(60);
        try (KvClient client = KvClient.builder().server(args[0]).transport("tcp").connectTimeout(patient)
            .requestTimeout(patient).build())
        {
            client.put("tcp-only", value);
            final byte[] read = client.get("tcp-only");
            System.out.println(Arrays.equals(value, read) ? "OK" : "WRONG " + Arrays.toString(read));
        }
    }
}
