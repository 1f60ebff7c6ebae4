package io.rdmakv.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options Chronicle Bytes needs on Java 17 beyond rdmakv's own ({@code --add-opens
 * java.base/jdk.internal.misc=ALL-UNNAMED} for Agrona), found by asking the module system about Chronicle's module
 * before any Chronicle class initialises. Without them Chronicle logs a WARNING (its ByteBuffer cleaner) and an
 * ERROR ("may require command line arguments") when it starts, its memory-mapped files fail, and Bytes over direct
 * {@code ByteBuffer}s fail with an {@link IllegalAccessError}. {@link ChronicleKv#of} refuses to start without them,
 * naming the ones missing.
 */
public final class ChronicleJvmFlags
{
    /** Chronicle's ByteBuffer cleaner. */
    public static final String INTERNAL_REF = "--add-exports java.base/jdk.internal.ref=ALL-UNNAMED";
    /** Chronicle's memory-mapped files (and its start-up check). */
    public static final String REFLECT = "--add-opens java.base/java.lang.reflect=ALL-UNNAMED";
    /** Bytes over direct {@code ByteBuffer}s (rdmakv's launcher already opens it for Netty). */
    public static final String NIO_CH = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    private ChronicleJvmFlags()
    {
    }

    /**
     * The options this JVM lacks, in the order of the constants above; empty when it has them all.
     *
     * @return the missing options, each as it goes on a java command line.
     */
    public static List<String> missing()
    {
        final Module chronicle = chronicleModule();
        final Module base = Object.class.getModule();
        final List<String> missing = new ArrayList<>(3);
        if (!base.isExported("jdk.internal.ref", chronicle))
        {
            missing.add(INTERNAL_REF);
        }
        if (!base.isOpen("java.lang.reflect", chronicle))
        {
            missing.add(REFLECT);
        }
        if (!base.isExported("sun.nio.ch", chronicle))
        {
            missing.add(NIO_CH);
        }
        return missing;
    }

    /**
     * @throws IllegalStateException naming the missing options (and their manifest form for an executable jar).
     */
    public static void ensure()
    {
        final List<String> missing = missing();
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("rdmakv's Chronicle Bytes API needs the JVM options " +
                String.join(" ", missing) + ": add them to the java command line (an executable jar's manifest can " +
                "say Add-Exports: java.base/jdk.internal.ref java.base/sun.nio.ch and Add-Opens: " +
                "java.base/java.lang.reflect instead)");
        }
    }

    /** The module of chronicle-core (where the reflection happens), loaded without initialising it. */
    private static Module chronicleModule()
    {
        try
        {
            return Class.forName("net.openhft.chronicle.core.Jvm", false, ChronicleJvmFlags.class.getClassLoader())
                .getModule();
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException("rdmakv's Chronicle Bytes API needs net.openhft:chronicle-bytes on the " +
                "class path (an optional dependency of rdmakv-kvstore-client: declare it)", ex);
        }
    }
}
