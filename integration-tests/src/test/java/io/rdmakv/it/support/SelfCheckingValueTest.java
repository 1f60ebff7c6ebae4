package io.rdmakv.it.support;

import io.rdmakv.it.support.SelfCheckingValue.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import static io.rdmakv.it.support.SelfCheckingValue.check;
import static io.rdmakv.it.support.SelfCheckingValue.encode;
import static io.rdmakv.it.support.SelfCheckingValue.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SelfCheckingValueTest
{
    @Test
    void shouldAcceptWhatItEncodedAtEveryLength()
    {
        final byte[] key = key("k-1");
        for (int length = SelfCheckingValue.HEADER_LENGTH; length < 600; length++)
        {
            final byte[] value = encode(key, length * 31L, length);
            assertEquals(length, value.length);
            assertEquals(Verdict.OK, check(key, value), "length " + length);
            assertEquals(length * 31L, SelfCheckingValue.sequence(value));
        }
    }

    @Test
    void shouldRejectAValueWrittenForAnotherKey()
    {
        final byte[] value = encode(key("alpha"), 7, 100);
        assertEquals(Verdict.WRONG_KEY, check(key("beta"), value));
        assertEquals(Verdict.WRONG_KEY, check(key("alph"), value));
    }

    @Test
    void shouldDetectAnySingleByteChange()
    {
        final byte[] key = key("torn");
        final byte[] original = encode(key, 42, 257);
        for (int i = 0; i < original.length; i++)
        {
            final byte[] damaged = original.clone();
            damaged[i] ^= 0x5A;
            assertNotEquals(Verdict.OK, check(key, damaged), "flip at " + i);
        }
    }

    @Test
    void shouldDetectAMixOfTwoWritesOfTheSameKey()
    {
        final byte[] key = key("mix");
        final byte[] older = encode(key, 1, 4096);
        final byte[] newer = encode(key, 2, 4096);
        for (final int cut : new int[] {8, 16, 31, 32, 33, 64, 2048, 4095})
        {
            final byte[] torn = newer.clone();
            System.arraycopy(older, cut, torn, cut, torn.length - cut);
            assertEquals(Verdict.TORN, check(key, torn), "cut at " + cut);
        }
    }

    @Test
    void shouldDetectAPayloadItsWriterDidNotProduceEvenUnderAMatchingCrc()
    {
        final byte[] key = key("forged");
        for (final int at : new int[] {SelfCheckingValue.HEADER_LENGTH, 40, 99})
        {
            final byte[] forged = encode(key, 5, 100);
            forged[at] ^= 0x01;
            final CRC32C crc = new CRC32C();
            crc.update(forged, 8, forged.length - 8);
            ByteBuffer.wrap(forged).order(ByteOrder.LITTLE_ENDIAN).putInt(4, (int)crc.getValue());
            assertEquals(Verdict.TORN, check(key, forged), "payload byte " + at);
        }
    }

    @Test
    void shouldRejectShortTruncatedAndForeignBytes()
    {
        final byte[] key = key("x");
        assertEquals(Verdict.BAD_LENGTH, check(key, null));
        assertEquals(Verdict.BAD_LENGTH, check(key, new byte[SelfCheckingValue.HEADER_LENGTH - 1]));
        assertEquals(Verdict.BAD_MAGIC, check(key, new byte[64]));
        final byte[] value = encode(key, 3, 128);
        assertEquals(Verdict.BAD_LENGTH, check(key, java.util.Arrays.copyOf(value, 127)));
        assertEquals(Verdict.BAD_LENGTH, check(key, java.util.Arrays.copyOf(value, 129)));
        assertThrows(IllegalArgumentException.class, () -> encode(key, 1, SelfCheckingValue.HEADER_LENGTH - 1));
    }
}
