package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.util.DecoratedBufferOverflowException;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.BufferOverflowException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ChronicleKv} against a real node over tcp (GETs by RPC and one-sided) and shm (one-sided; values beyond the
 * client's one-sided buffer by RPC over the shared-memory rings): round trips of 0, 1, 4 KiB and the node's maximum,
 * sync and async, into off-heap and on-heap Bytes; growth of elastic Bytes; a clear refusal by fixed ones; bad input.
 */
@Timeout(90)
class ChronicleKvTest
{
    /** The node's limit ({@link InProcessNode}: limits.maxValueBytes). */
    private static final int MAX_VALUE = 65_536;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}, GETs {1}")
    @CsvSource({"tcp, RPC", "tcp, ONE_SIDED", "shm, AUTO"})
    void shouldRoundTripValuesOfEverySizeThroughBytes(final String transport, final GetMode mode) throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", transport));
             KvClient client = InProcessNode.client(server).transport(transport).getMode(mode).build())
        {
            final ChronicleKv kv = ChronicleKv.of(client);
            for (final int length : new int[] {0, 1, 4096, MAX_VALUE})
            {
                final byte[] expected = pattern(length);
                final String key = "k" + length;
                final BytesStore<?, ?> value = BytesStore.nativeStoreFrom(expected);
                kv.put(key, value);
                assertEquals(length, value.readRemaining(), "put leaves the value's positions alone");
                value.releaseLast();

                final Bytes<?> direct = Bytes.allocateElasticDirect(16);
                assertTrue(kv.get(key, direct));
                assertArrayEquals(expected, direct.toByteArray(), "off-heap, sync, " + length + " B");
                direct.releaseLast();

                final Bytes<byte[]> heap = Bytes.allocateElasticOnHeap(8);
                assertTrue(kv.getAsync(key.getBytes(), heap).get(30, TimeUnit.SECONDS));
                assertArrayEquals(expected, heap.toByteArray(), "on-heap, async, " + length + " B");
                assertArrayEquals(expected, client.get(key), "the byte[] API reads what ChronicleKv wrote");
            }
            if (mode != GetMode.RPC)
            {
                assertTrue(client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS) > 0);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp", "shm"})
    void shouldGrowElasticBytesAndRefuseFixedOnesThatAreTooSmall(final String transport) throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", transport));
             KvClient client = InProcessNode.client(server).transport(transport).getMode(GetMode.AUTO).build())
        {
            final ChronicleKv kv = ChronicleKv.of(client);
            final byte[] value = pattern(4096);
            client.put("big", value);

            final Bytes<?> elastic = Bytes.allocateElasticDirect(16);
            elastic.append("head:");
            assertTrue(kv.get("big", elastic));
            assertTrue(elastic.realCapacity() >= 4096 + 5, "grew to " + elastic.realCapacity());
            final byte[] all = elastic.toByteArray();
            assertEquals("head:", new String(all, 0, 5), "appended after what was there");
            assertArrayEquals(value, Arrays.copyOfRange(all, 5, all.length));
            elastic.releaseLast();

            final Bytes<?> fixedDirect = Bytes.allocateDirect(64);
            fixedDirect.writeByte((byte)7);
            final BufferOverflowException sync =
                assertThrows(DecoratedBufferOverflowException.class, () -> kv.get("big", fixedDirect));
            assertTrue(sync.getMessage().contains("4096 bytes does not fit"), sync.getMessage());
            assertEquals(1, fixedDirect.writePosition(), "a refused value leaves the Bytes as they were");
            fixedDirect.releaseLast();

            final Bytes<byte[]> fixedHeap = Bytes.wrapForWrite(new byte[10]);
            final CompletionException async =
                assertThrows(CompletionException.class, () -> kv.getAsync("big", fixedHeap).join());
            assertInstanceOf(DecoratedBufferOverflowException.class, async.getCause());
            assertEquals(0, fixedHeap.writePosition());

            final Bytes<?> roomy = Bytes.allocateDirect(8192);
            assertTrue(kv.get("big", roomy), "the client serves on after a refusal");
            assertArrayEquals(value, roomy.toByteArray());
            assertFalse(kv.get("absent", roomy), "absent: false");
            assertEquals(4096, roomy.writePosition(), "absent: nothing written");
            roomy.releaseLast();
        }
    }

    @Test
    void shouldRefuseNullAndReleasedBytesBeforeSending()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient client = InProcessNode.client(server).build())
        {
            final ChronicleKv kv = ChronicleKv.of(client);
            final Bytes<?> into = Bytes.allocateElasticDirect(16);
            final BytesStore<?, ?> value = BytesStore.nativeStoreFrom(new byte[] {1, 2, 3});
            assertThrows(NullPointerException.class, () -> ChronicleKv.of(null));
            assertThrows(NullPointerException.class, () -> kv.get((byte[])null, into));
            assertThrows(NullPointerException.class, () -> kv.get("k", null));
            assertThrows(NullPointerException.class, () -> kv.getAsync((BytesStore<?, ?>)null, into));
            assertThrows(NullPointerException.class, () -> kv.put("k", null));
            assertThrows(NullPointerException.class, () -> kv.putAsync((String)null, value));
            assertThrows(IllegalArgumentException.class, () -> kv.put(new byte[0], value), "empty key");
            assertThrows(IllegalArgumentException.class,
                () -> kv.put("k", BytesStore.nativeStoreFrom(new byte[MAX_VALUE + 1])), "value beyond the limit");

            final long rpcsBefore = client.diagnostics().counters().get(ClientCounter.RPCS);
            final Bytes<?> released = Bytes.allocateElasticDirect(16);
            released.releaseLast();
            assertThrows(ClosedIllegalStateException.class, () -> kv.get("k", released));
            assertThrows(ClosedIllegalStateException.class, () -> kv.getAsync("k", released));
            final BytesStore<?, ?> releasedValue = BytesStore.nativeStoreFrom(new byte[] {1});
            releasedValue.releaseLast();
            assertThrows(ClosedIllegalStateException.class, () -> kv.put("k", releasedValue));
            assertThrows(ClosedIllegalStateException.class, () -> kv.put(releasedValue, value));
            assertEquals(rpcsBefore, client.diagnostics().counters().get(ClientCounter.RPCS), "nothing was sent");

            kv.put("k", value);
            assertTrue(kv.get("k", into), "the client serves on after refusals");
            assertArrayEquals(new byte[] {1, 2, 3}, into.toByteArray());
            into.releaseLast();
            value.releaseLast();
        }
    }

    @Test
    void shouldPutOnlyTheReadableBytesOfKeysAndValuesWithoutMovingThem()
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient client = InProcessNode.client(server).build())
        {
            final ChronicleKv kv = ChronicleKv.of(client);
            final Bytes<?> key = Bytes.allocateElasticDirect(32);
            key.append("xxkey");
            key.readSkip(2);
            final Bytes<byte[]> value = Bytes.allocateElasticOnHeap(32);
            value.append("--value");
            value.readSkip(2);
            kv.putAsync(key, value).join();
            assertEquals(2, key.readPosition());
            assertEquals(2, value.readPosition());
            assertArrayEquals("value".getBytes(), client.get("key"));
            final Bytes<?> into = Bytes.allocateElasticDirect(16);
            assertTrue(kv.getAsync(key, into).join());
            assertEquals("value", into.toString());
            key.releaseLast();
            into.releaseLast();
        }
    }

    /** Bytes that differ at every position (a value misplaced by one byte fails the comparison). */
    static byte[] pattern(final int length)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = (byte)(i * 31 + (i >>> 8));
        }
        return b;
    }
}
