import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreKeys;
import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The RocksDB write of one PUT measured alone on the host, as the server's request thread writes it (the host twin of
 * integration-tests' RocksWriteFiguresTest): RocksStore with the default durability (WAL on, no sync), key and value
 * copied into direct buffers untimed, batch.put + write timed, one PUT per batch; 10,000 keys of 16 B, first writes
 * and one round of overwrites untimed, then the measured overwrites. Prints p50/p90/p99 in microseconds.
 *
 *   java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp cli/target/rdmakv.jar \
 *       benchmarks/scripts/RocksWriteAlone.java [valueBytes] [writes] [dir]
 */
public final class RocksWriteAlone
{
    public static void main(final String[] args) throws Exception
    {
        final int valueBytes = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        final int writes = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        final Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("rocks-write-alone");
        final int keys = 10_000;
        final ByteBuffer key = ByteBuffer.allocateDirect(64);
        // A stored value is a record (header: data version, expiry; then the value), as the node writes it.
        final ByteBuffer value = ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH + valueBytes);
        final byte[] valueBytesArray = new byte[valueBytes];
        final long[] nanos = new long[writes];
        try (RocksStore store = RocksStore.open(dir.resolve("rocks"), Durability.DEFAULT);
             WriteBatch batch = new WriteBatch())
        {
            for (int n = 0; n < 2 * keys + writes; n++)
            {
                final byte[] k = String.format("key%013d", n % keys).getBytes();
                valueBytesArray[0] = (byte)n;
                key.clear();
                key.put(StoreKeys.encode(k)).flip();
                value.clear();
                ValueRecord.writeHeader(new UnsafeBuffer(value), 0, n + 1, 0);
                value.position(ValueRecord.HEADER_LENGTH);
                value.put(valueBytesArray).flip();
                batch.clear();
                final long start = System.nanoTime();
                store.addPut(batch, key, value);
                store.write(batch);
                final long took = System.nanoTime() - start;
                if (n >= 2 * keys)
                {
                    nanos[n - 2 * keys] = took;
                }
            }
        }
        Arrays.sort(nanos);
        System.out.printf("RocksDB write alone (%d B values, %d writes): p50 %.1f us, p90 %.1f us, p99 %.1f us%n",
            valueBytes, writes, nanos[writes / 2] / 1e3, nanos[writes * 9 / 10] / 1e3, nanos[writes * 99 / 100] / 1e3);
    }
}
