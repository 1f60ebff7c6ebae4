package io.rdmakv.bench;

import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Encoding and decoding of the data-plane messages (PUT and GET requests, the RESPONSE) with the protocol's
 * flyweights over direct buffers, as the client and the server do per operation. Decoding goes through
 * {@link MessageDecoder}, which validates every length against the received size. Run with {@code -prof gc}: every
 * one of these should show about 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1,
    jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, BenchmarkMain.NETTY_REFLECTION})
public class MessageCodecBenchmark
{
    private static final int KEY_LENGTH = 16;
    private static final int CAPACITY = 1 << 17;

    @Param({"100", "4096"})
    public int valueBytes;

    private final PutRequestFlyweight put = new PutRequestFlyweight();
    private final KeyRequestFlyweight get = new KeyRequestFlyweight();
    private final ResponseFlyweight response = new ResponseFlyweight();
    private final MessageDecoder decoder = new MessageDecoder();
    private final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(KEY_LENGTH));
    private final UnsafeBuffer value = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final UnsafeBuffer encodedPut = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final UnsafeBuffer encodedGet = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final UnsafeBuffer encodedResponse = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private int putLength;
    private int getLength;
    private int responseLength;
    private long correlationId;

    @Setup(Level.Trial)
    public void setUp()
    {
        for (int i = 0; i < KEY_LENGTH; i++)
        {
            key.putByte(i, (byte)('a' + i));
        }
        for (int i = 0; i < valueBytes; i++)
        {
            value.putByte(i, (byte)i);
        }
        putLength = new PutRequestFlyweight().wrap(encodedPut, 0, CAPACITY).header(MessageType.PUT_REQUEST, 1)
            .keyAndValue(key, 0, KEY_LENGTH, value, 0, valueBytes).encodedLength();
        getLength = new KeyRequestFlyweight().wrap(encodedGet, 0, CAPACITY).header(MessageType.GET_REQUEST, 2)
            .key(key, 0, KEY_LENGTH).encodedLength();
        final ResponseFlyweight r = new ResponseFlyweight().wrap(encodedResponse, 0, CAPACITY)
            .header(MessageType.RESPONSE, 3);
        responseLength = r.status(Status.OK).version(7).value(value, 0, valueBytes).encodedLength();
    }

    @Benchmark
    public int encodePut()
    {
        return put.wrap(out, 0, CAPACITY).header(MessageType.PUT_REQUEST, ++correlationId)
            .keyAndValue(key, 0, KEY_LENGTH, value, 0, valueBytes).encodedLength();
    }

    @Benchmark
    public int encodeGet()
    {
        return get.wrap(out, 0, CAPACITY).header(MessageType.GET_REQUEST, ++correlationId)
            .key(key, 0, KEY_LENGTH).encodedLength();
    }

    @Benchmark
    public int encodeResponse()
    {
        return response.wrap(out, 0, CAPACITY).header(MessageType.RESPONSE, ++correlationId)
            .status(Status.OK).version(correlationId).value(value, 0, valueBytes).encodedLength();
    }

    @Benchmark
    public void decodePut(final Blackhole bh)
    {
        bh.consume(decoder.decode(encodedPut, 0, putLength));
        final PutRequestFlyweight p = decoder.putRequest();
        bh.consume(p.keyLength() + p.valueLength() + p.valueIndex());
    }

    @Benchmark
    public void decodeGet(final Blackhole bh)
    {
        bh.consume(decoder.decode(encodedGet, 0, getLength));
        bh.consume(decoder.keyRequest().keyIndex() + decoder.keyRequest().keyLength());
    }

    @Benchmark
    public void decodeResponse(final Blackhole bh)
    {
        bh.consume(decoder.decode(encodedResponse, 0, responseLength));
        final ResponseFlyweight r = decoder.response();
        bh.consume(r.statusCode() + r.valueLength() + r.version());
    }
}
