package io.rdmakv.client;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytes;

import java.io.File;
import java.nio.ByteBuffer;

/**
 * A child JVM for {@link ChronicleJvmFlagTest}: runs the flag check, then uses what needs the flags (off-heap Bytes,
 * Bytes over a direct ByteBuffer, a mapped file); prints one line: {@code OK} or {@code FAILED <exception>}.
 */
public final class ChronicleFlagsMain
{
    private ChronicleFlagsMain()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            ChronicleJvmFlags.ensure();
            final Bytes<?> bytes = Bytes.allocateElasticDirect(16);
            bytes.writeLong(42);
            bytes.releaseLast();
            final BytesStore<?, ByteBuffer> wrapped = BytesStore.wrap(ByteBuffer.allocateDirect(64));
            wrapped.writeLong(0, 42);
            final File file = new File(args[0]);
            final MappedBytes mapped = MappedBytes.mappedBytes(file, 64 << 10);
            mapped.writeLong(42);
            mapped.releaseLast();
            System.out.println("OK");
        }
        catch (final Throwable t)
        {
            System.out.println("FAILED " + t);
        }
    }
}
