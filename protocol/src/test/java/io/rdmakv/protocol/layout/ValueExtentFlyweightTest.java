package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ValueExtentFlyweightTest
{
    private static final byte[] KEY = "user:42".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = "the quick brown fox jumps over the lazy dog, twice over".getBytes(
        StandardCharsets.US_ASCII);

    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();

    @Test
    void shouldRoundTripOnArrayDirectAndRawAddressBuffers()
    {
        final int required = ValueExtentFlyweight.requiredLength(KEY.length, VALUE.length);
        final ByteBuffer direct = ByteBuffer.allocateDirect(required + 64);
        final UnsafeBuffer[] buffers = {
            new UnsafeBuffer(new byte[required + 64]),
            new UnsafeBuffer(direct),
            // A view over a raw address, like the mmap'd pool: no array, no ByteBuffer behind it.
            new UnsafeBuffer(BufferUtil.address(ByteBuffer.allocateDirect(required + 64)), required + 64),
        };
        int expectedCrc = 0;
        for (final UnsafeBuffer buffer : buffers)
        {
            assertEquals(required, extent.wrap(buffer, 64, required).write(KEY, VALUE, 99));
            assertEquals(ExtentStatus.OK, extent.verify(KEY));
            assertEquals(99, extent.version());
            assertEquals(KEY.length, extent.keyLength());
            assertEquals(VALUE.length, extent.valueLength());
            assertArrayEquals(VALUE, extent.value());
            assertArrayEquals(KEY, extent.key());
            if (expectedCrc == 0)
            {
                expectedCrc = extent.crc();
            }
            assertEquals(expectedCrc, extent.crc(), "same CRC whichever way the memory is reached");
        }
        final CRC32C reference = new CRC32C();
        final byte[] covered = new byte[32 + KEY.length + VALUE.length];
        buffers[0].getBytes(64 + 8, covered);
        reference.update(covered);
        assertEquals((int)reference.getValue(), expectedCrc, "CRC32C over bytes [8, 40 + K + V)");
    }

    @Test
    void shouldComputeSoftwareCrcEqualToTheJdk()
    {
        final Random random = new Random(3);
        final byte[] bytes = new byte[300];
        random.nextBytes(bytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        for (int offset = 0; offset < 9; offset++)
        {
            for (int length = 0; length < 290; length += 7)
            {
                final CRC32C crc = new CRC32C();
                crc.update(bytes, offset, length);
                assertEquals((int)crc.getValue(), Crc32c.software(buffer, offset, length), offset + "/" + length);
            }
        }
    }

    @Test
    void shouldRoundUpRequiredLengthToSixtyFourAndRejectOversize()
    {
        assertEquals(64, ValueExtentFlyweight.requiredLength(0, 0));
        assertEquals(64, ValueExtentFlyweight.requiredLength(12, 12));
        assertEquals(128, ValueExtentFlyweight.requiredLength(12, 13));
        assertEquals(ProtocolLimits.MAX_EXTENT_LENGTH,
            ValueExtentFlyweight.requiredLength(0, ProtocolLimits.MAX_FORMAT_VALUE_LENGTH));
        assertEquals(ErrorCode.VALUE_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> ValueExtentFlyweight.requiredLength(1, ProtocolLimits.MAX_FORMAT_VALUE_LENGTH)).errorCode());
        assertEquals(ErrorCode.VALUE_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> ValueExtentFlyweight.requiredLength(1, Integer.MAX_VALUE)).errorCode());
        assertEquals(ErrorCode.KEY_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> ValueExtentFlyweight.requiredLength(ProtocolLimits.MAX_KEY_LENGTH + 1, 0)).errorCode());
        assertEquals(true, ValueExtentFlyweight.fits(ProtocolLimits.MAX_KEY_LENGTH, ProtocolLimits.DEFAULT_MAX_VALUE_LENGTH));
        assertEquals(false, ValueExtentFlyweight.fits(0, -1));
    }

    @Test
    void shouldRefuseToWriteBeyondWrappedSpace()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        extent.wrap(buffer, 0, 64);
        assertEquals(ErrorCode.TRUNCATED,
            assertThrows(ProtocolException.class, () -> extent.write(KEY, VALUE, 1)).errorCode());
        assertEquals(ErrorCode.TRUNCATED,
            assertThrows(ProtocolException.class, () -> extent.wrap(buffer, 0, 23)).errorCode());
        assertEquals(ErrorCode.TRUNCATED,
            assertThrows(ProtocolException.class, () -> extent.wrap(buffer, 32, 64)).errorCode());
    }

    @Test
    void shouldDetectSingleByteCorruptionAnywhereInHeaderKeyAndValue()
    {
        final int required = ValueExtentFlyweight.requiredLength(KEY.length, VALUE.length);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[required]);
        extent.wrap(buffer, 0, required).write(KEY, VALUE, 5);
        final int end = ValueExtentFlyweight.HEADER_LENGTH + KEY.length + VALUE.length;
        for (int i = 0; i < end; i++)
        {
            for (final int flip : new int[] {0x01, 0x80, 0xFF})
            {
                final byte original = buffer.getByte(i);
                buffer.putByte(i, (byte)(original ^ flip));
                final ExtentStatus status = extent.verify(KEY);
                final ExtentStatus current = extent.verifyCurrent(keyBuffer(), 0, KEY.length, 5);
                assertNotEquals(ExtentStatus.OK, current, "corruption at byte " + i + " not caught");
                if (i >= ValueExtentFlyweight.STATE_OFFSET && i < ValueExtentFlyweight.CRC_START)
                {
                    // The state word is outside the CRC: only a reader that checks it sees the change.
                    assertEquals(ExtentStatus.OK, status, "byte " + i);
                    assertEquals(ExtentStatus.RETIRED, current, "byte " + i);
                    buffer.putByte(i, original);
                    continue;
                }
                assertNotEquals(ExtentStatus.OK, status, "corruption at byte " + i + " not caught");
                if (i < ValueExtentFlyweight.KEY_LENGTH_OFFSET || i >= ValueExtentFlyweight.HEADER_LENGTH)
                {
                    assertEquals(ExtentStatus.TORN_CRC, status, "byte " + i);
                }
                buffer.putByte(i, original);
            }
        }
        assertEquals(ExtentStatus.OK, extent.verify(KEY));
        // Padding is not covered: corrupting it is harmless.
        buffer.putByte(required - 1, (byte)0x55);
        assertEquals(ExtentStatus.OK, extent.verify(KEY));
    }

    @Test
    void shouldWriteLiveStateAndRetireItOutsideTheCrc()
    {
        final int required = ValueExtentFlyweight.requiredLength(KEY.length, VALUE.length);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(required));
        final long version = (7L << 32) | 0x8000_0005L; // bit 31 of the low word set: the state keeps only 31 bits
        extent.wrap(buffer, 0, required).write(KEY, VALUE, version);
        assertEquals(ValueExtentFlyweight.liveState(version), extent.state());
        assertEquals(5, extent.state(), "low 31 bits of the version");
        assertEquals(true, extent.isLive());
        assertEquals(ExtentStatus.OK, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version));
        assertEquals(ExtentStatus.VERSION_MISMATCH, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version - 1));
        assertEquals(ExtentStatus.KEY_MISMATCH, extent.verifyCurrent(
            new UnsafeBuffer("user:43".getBytes(StandardCharsets.US_ASCII)), 0, KEY.length, version));

        final int crc = extent.crc();
        extent.retire();
        assertEquals(ValueExtentFlyweight.retiredState(version), extent.state());
        assertEquals(false, extent.isLive());
        assertEquals(crc, extent.crc(), "retiring does not touch the CRC");
        assertEquals(ExtentStatus.OK, extent.verify(KEY), "still intact for a reader that followed the index");
        assertEquals(ExtentStatus.RETIRED, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version));

        // Reused for a newer value of the same key: the new life is LIVE for its own version only.
        extent.write(KEY, VALUE, version + 1);
        assertEquals(ExtentStatus.VERSION_MISMATCH, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version));
        assertEquals(ExtentStatus.OK, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version + 1));
        // A state word from one life next to the header of another never verifies.
        buffer.putInt(ValueExtentFlyweight.STATE_OFFSET, ValueExtentFlyweight.liveState(version),
            ByteOrder.LITTLE_ENDIAN);
        assertEquals(ExtentStatus.RETIRED, extent.verifyCurrent(keyBuffer(), 0, KEY.length, version + 1));
    }

    @Test
    void shouldReportKeyMismatchAndBadLengthsWithoutThrowing()
    {
        final int required = ValueExtentFlyweight.requiredLength(KEY.length, VALUE.length);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[required]);
        extent.wrap(buffer, 0, required).write(KEY, VALUE, 5);
        assertEquals(ExtentStatus.KEY_MISMATCH, extent.verify("user:43".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(ExtentStatus.KEY_MISMATCH, extent.verify("user:4".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(ExtentStatus.KEY_MISMATCH, extent.verify(new byte[0]));

        buffer.putInt(ValueExtentFlyweight.VALUE_LENGTH_OFFSET, -1, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ExtentStatus.BAD_LENGTH, extent.verify(KEY));
        buffer.putInt(ValueExtentFlyweight.VALUE_LENGTH_OFFSET, required, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ExtentStatus.BAD_LENGTH, extent.verify(KEY));

        // Random garbage never throws.
        final Random random = new Random(5);
        final byte[] garbage = new byte[256];
        for (int i = 0; i < 2000; i++)
        {
            random.nextBytes(garbage);
            final ExtentStatus status = extent.wrap(new UnsafeBuffer(garbage), 0, 40 + random.nextInt(217))
                .verify(KEY);
            assertNotEquals(ExtentStatus.OK, status);
        }
    }

    @Test
    void shouldCarryDataVersionAndExpiryUnderTheCrcInOneRead()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final UnsafeBuffer key = new UnsafeBuffer(KEY);
        final UnsafeBuffer value = new UnsafeBuffer(VALUE);
        final int length = extent.wrap(buffer, 0, 256).write(key, 0, KEY.length, value, 0, VALUE.length,
            (7L << 32) | 3, 0x1234_5678_9ABCL, 1_800_000_000_000L);
        assertEquals(ExtentStatus.OK, extent.wrap(buffer, 0, length).verify(KEY));
        assertEquals(0x1234_5678_9ABCL, extent.dataVersion());
        assertEquals(1_800_000_000_000L, extent.expiryMillis());
        assertEquals((7L << 32) | 3, extent.version());
        assertEquals(ExtentStatus.OK, extent.verifyCurrent(key, 0, KEY.length, (7L << 32) | 3));
        // The reuse check keys on the extent version, never on the data version (the same in several lives).
        assertEquals(ExtentStatus.VERSION_MISMATCH, extent.verifyCurrent(key, 0, KEY.length, 0x1234_5678_9ABCL));
        // A torn data version or expiry fails the CRC, so it is never returned beside another value.
        for (final int field : new int[] {ValueExtentFlyweight.DATA_VERSION_OFFSET, ValueExtentFlyweight.EXPIRY_OFFSET})
        {
            buffer.putByte(field, (byte)(buffer.getByte(field) ^ 1));
            assertEquals(ExtentStatus.TORN_CRC, extent.verify(KEY));
            buffer.putByte(field, (byte)(buffer.getByte(field) ^ 1));
            assertEquals(ExtentStatus.OK, extent.verify(KEY));
        }
    }

    @Test
    void shouldCoverFlagsByTheCrc()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        extent.wrap(buffer, 0, 128).write(KEY, VALUE, 5);
        extent.flags(1);
        assertEquals(ExtentStatus.TORN_CRC, extent.verify(KEY));
        extent.updateCrc();
        assertEquals(ExtentStatus.OK, extent.verify(KEY));
        assertEquals(1, extent.flags());
    }

    private static UnsafeBuffer keyBuffer()
    {
        return new UnsafeBuffer(KEY);
    }
}
