package io.rdmakv.ycsb;

import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordCodecTest
{
    private static Map<String, ByteIterator> record(final String... nameValues)
    {
        final Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2)
        {
            m.put(nameValues[i], new StringByteIterator(nameValues[i + 1]));
        }
        return m;
    }

    private static Map<String, String> strings(final Map<String, ByteIterator> fields)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        fields.forEach((k, v) -> m.put(k, v.toString()));
        return m;
    }

    private static Map<String, String> decodeAll(final byte[] bytes, final Set<String> wanted)
    {
        final Map<String, ByteIterator> out = new HashMap<>();
        RecordCodec.decode(bytes, wanted, out);
        return strings(out);
    }

    @Test
    void shouldRoundTripEveryField()
    {
        final byte[] bytes = RecordCodec.encode(record("field0", "alpha", "field1", "", "fïeld2", "third value"));
        assertEquals(Map.of("field0", "alpha", "field1", "", "fïeld2", "third value"), decodeAll(bytes, null));
        assertEquals(List.of("field0", "field1", "fïeld2"),
            List.copyOf(RecordCodec.decodeBytes(bytes, null).keySet()), "the record's order is kept");
    }

    @Test
    void shouldHaveTheDocumentedLayoutAndSize()
    {
        final Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++)
        {
            final byte[] v = new byte[100];
            Arrays.fill(v, (byte) ('a' + i));
            m.put("field" + i, new site.ycsb.ByteArrayByteIterator(v));
        }
        assertEquals(1122, RecordCodec.encode(m).length);

        final ByteBuffer b = ByteBuffer.wrap(RecordCodec.encode(record("ab", "xyz")));
        assertEquals(1, b.getShort());
        assertEquals(2, b.getShort());
        assertEquals('a', b.get());
        assertEquals('b', b.get());
        assertEquals(3, b.getInt());
        assertEquals("xyz", StandardCharsets.UTF_8.decode(b.slice()).toString());
    }

    @Test
    void shouldReturnOnlyTheWantedFields()
    {
        final byte[] bytes = RecordCodec.encode(record("a", "1", "b", "22", "c", "333"));
        assertEquals(Map.of("b", "22"), decodeAll(bytes, Set.of("b")));
        assertEquals(Map.of("a", "1", "c", "333"), decodeAll(bytes, Set.of("c", "a", "missing")));
        assertEquals(Map.of(), decodeAll(bytes, Set.of("missing")));
        assertEquals(Map.of(), decodeAll(bytes, Set.of()));
    }

    @Test
    void shouldRoundTripAnEmptyRecord()
    {
        final byte[] bytes = RecordCodec.encode(Map.of());
        assertArrayEquals(new byte[] {0, 0}, bytes);
        assertEquals(Map.of(), decodeAll(bytes, null));
    }

    @Test
    void shouldMergeUpdatesIntoTheStoredRecord()
    {
        final byte[] stored = RecordCodec.encode(record("a", "1", "b", "2", "c", "3"));
        final byte[] merged = RecordCodec.merge(stored, record("b", "two", "d", "4"));
        assertEquals(List.of("a", "b", "c", "d"), List.copyOf(RecordCodec.decodeBytes(merged, null).keySet()));
        assertEquals(Map.of("a", "1", "b", "two", "c", "3", "d", "4"), decodeAll(merged, null));
        assertEquals(Map.of("b", "x"), decodeAll(RecordCodec.merge(null, record("b", "x")), null),
            "no stored record: the update alone");
    }

    @Test
    void shouldRefuseMalformedRecordsSayingWhere()
    {
        final byte[] good = RecordCodec.encode(record("a", "1", "b", "22"));
        for (int cut = 0; cut < good.length; cut++)
        {
            final byte[] truncated = Arrays.copyOf(good, cut);
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> RecordCodec.decodeBytes(truncated, null), "cut at " + cut);
            assertTrue(ex.getMessage().startsWith("malformed record (" + cut + " bytes): "), ex.getMessage());
        }
        final byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.decodeBytes(trailing, Set.of("a")))
            .getMessage().contains("1 bytes after the last of 2 fields"));

        final byte[] hugeValue = good.clone();
        ByteBuffer.wrap(hugeValue).putInt(2 + 2 + 1, -1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.decodeBytes(hugeValue, null))
            .getMessage().contains("value length of field 0 is 4294967295"));

        final byte[] beyondEnd = good.clone();
        ByteBuffer.wrap(beyondEnd).putInt(2 + 2 + 1, 1000);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.decodeBytes(beyondEnd, Set.of()))
            .getMessage().contains("value of field 0 needs 1000 bytes"), "skipped values are bounds-checked too");

        final byte[] repeated = RecordCodec.encode(record("a", "1", "b", "22"));
        repeated[2 + 2 + 1 + 4 + 1 + 2] = 'a';
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.decodeBytes(repeated, null))
            .getMessage().contains("field 'a' repeated"));

        assertThrows(IllegalArgumentException.class, () -> RecordCodec.decodeBytes(null, null));
    }

    @Test
    void shouldRefuseWhatCannotBeEncoded()
    {
        final Map<String, byte[]> longName = Map.of("n".repeat(65_536), new byte[0]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.encodeBytes(longName))
            .getMessage().contains("field name of 65536 bytes"));
        final Map<String, byte[]> many = new HashMap<>();
        for (int i = 0; i < 65_536; i++)
        {
            many.put(Integer.toString(i), new byte[0]);
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RecordCodec.encodeBytes(many))
            .getMessage().contains("at most 65535 fields"));
    }
}
