package io.rdmakv.transport;

/**
 * Agrona 2.x reaches {@code jdk.internal.misc.Unsafe} directly ({@code org.agrona.UnsafeApi}, initialised by the first
 * {@code UnsafeBuffer}, {@code BufferUtil} or {@code AtomicBuffer}), and there is no property that makes it fall
 * back to {@code sun.misc.Unsafe}: without {@value #FLAG} the first buffer fails with an {@link IllegalAccessError}
 * deep inside a build. This check asks the module system first, without touching Agrona's unsafe class, and fails
 * with a message that names the flag. Every provider's {@code open} runs it (selecting a transport, as
 * {@code rdmakv doctor} does, needs no flag).
 */
public final class JvmAccess
{
    /** The JVM option Agrona needs (an executable jar can say {@code Add-Opens: java.base/jdk.internal.misc}). */
    public static final String FLAG = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";

    private JvmAccess()
    {
    }

    /** Whether Agrona's module (the unnamed one on a class path) may use {@code jdk.internal.misc}. */
    public static boolean agronaHasAccess()
    {
        return Object.class.getModule().isExported("jdk.internal.misc", org.agrona.DirectBuffer.class.getModule());
    }

    /**
     * @throws IllegalStateException naming {@link #FLAG} when this JVM was started without it.
     */
    public static void ensureAgronaAccess()
    {
        if (!agronaHasAccess())
        {
            throw new IllegalStateException("rdmakv needs the JVM option " + FLAG + " (Agrona 2.x, its buffer " +
                "library, uses jdk.internal.misc.Unsafe): add it to the java command line (or " +
                "Add-Opens: java.base/jdk.internal.misc to an executable jar's manifest)");
        }
    }
}
